"""Independent batches of vertex pairs and their XPBD projection: the kernel pair families share.

A pair family (mesh distances, long-range limits, and later seams) lists its pairs once; this
module splits them into batches in which no vertex appears twice, so each batch is one
vectorised Gauss-Seidel step. On a grid layout a batch may be a pair of strided views of the
(3, R, C) workspace (no index arrays, ~3x faster); otherwise it is gathered by layout slot.

High-valence vertices (hubs: a fan's centre, a UV sphere's pole) would force one batch per
incident pair. Instead, all the pairs at hubs are projected in a few batches of their own, in
which a hub may appear many times: each copy acts with its inverse mass times its count in the
batch (mass splitting) and the hub moves by the mean of its copies' corrections.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from .coloring import color_constraints
from .gridpath import GridColour, GridLayout, present_colours
from .vectors import c_einsum

_HARD = 1e-30  # compliance of an infinitely stiff constraint
_EPS = 1e-12
HUB_VALENCE = 24  # a vertex in more pairs than this is a hub
# A strided batch of fewer pairs than this (phantoms included) updates both ends with one broadcast multiply
# (`_kernel`): quicker under ~1,500 pairs (16²-48²), slower at 64² (docs/design.md, issue 11, round 27 (substep_r27)).
BROADCAST_UPDATE_BELOW = 1536
_NO_SLOTS = np.zeros(0, dtype=np.int64)


_squared_lengths = c_einsum
# float32 0-d operands: a Python float costs a ufunc ~0.3 us more per call to convert (same values).
_EPS32 = np.array(_EPS, np.float32)
_ONE32 = np.array(1.0, np.float32)
_ZERO32 = np.array(0.0, np.float32)


@dataclass(frozen=True)
class Layout:
    """Where each vertex lives in the workspace: slot_of[v]; a grid's strided layout when there is one."""

    order: np.ndarray | None  # (N,) vertex at each slot; None: identity
    slot_of: np.ndarray  # (N,) slot of each vertex
    grid: GridLayout | None = None

    @staticmethod
    def identity(n: int) -> Layout:
        return Layout(None, np.arange(n))

    @staticmethod
    def of_grid(grid) -> Layout:
        slot_of = np.empty(len(grid.order), dtype=np.int64)
        slot_of[grid.order] = np.arange(len(grid.order))
        return Layout(None if grid.identity else grid.order, slot_of, grid)


@dataclass(frozen=True)
class PairBatch:
    """One batch: pairs (vertex_a[k], vertex_b[k]); only a hub batch may repeat vertex_a, only a
    split batch (the tail sets of a colouring, projected together) either end."""

    member: np.ndarray  # batch-shaped indices into the family's pair list
    vertex_a: np.ndarray  # batch-shaped vertex indices
    vertex_b: np.ndarray
    view: GridColour | None = None  # strided form on the grid workspace; else gathered by slot
    slot_a: np.ndarray = field(default_factory=lambda: _NO_SLOTS)  # (n,) workspace slots (gathered batches)
    slot_b: np.ndarray = field(default_factory=lambda: _NO_SLOTS)
    hub: bool = False
    split: bool = False
    plain: int = 0  # a hub batch's last `plain` pairs touch no hub (and no vertex of its other pairs)


def strided_batch(colour: GridColour, member: np.ndarray, grid) -> PairBatch:
    slots = grid.order.reshape(grid.rows, grid.columns)
    a, b = colour.views(slots)
    return PairBatch(member, np.array(a), np.array(b), view=colour)


def gathered_batches(
    pairs: np.ndarray, members: np.ndarray, layout: Layout, n: int, seed: int = 0, tails: float = 0.0
) -> list[PairBatch]:
    """Batches of the pairs `pairs[members]`: hubs' pairs in hub batches, the rest coloured (Luby).

    tails: the colour sets after the first one smaller than `tails` × the first set's size are
    projected together as one split batch (a vertex in several of its pairs acts with its inverse
    mass times its count there and moves by the mean of its copies' corrections): a whole batch's
    call overhead (~8 us) per tail set saved, for a Jacobi step among the tails' shared vertices.
    """
    if len(members) == 0:
        return []
    chosen = pairs[members]
    valence = np.bincount(chosen.reshape(-1), minlength=n)
    hub = valence > HUB_VALENCE
    at_hub = hub[chosen[:, 0]] ^ hub[chosen[:, 1]]  # pairs between two hubs are coloured normally
    out = []
    groups = color_constraints(chosen[~at_hub], n, seed=seed)
    small = [k for k, g in enumerate(groups) if len(g) < tails * len(groups[0])] if groups else []
    if len(small) >= 2:  # one tail set alone stays a plain batch
        merged = np.sort(np.concatenate(groups[small[0] :]))
        groups = [*groups[: small[0]], merged]
    for k, group in enumerate(groups):
        out.append(
            _gathered(members[~at_hub][group], pairs, layout, hub=False, split=len(small) >= 2 and k == len(groups) - 1)
        )
    if at_hub.any():
        hub_members = members[at_hub]
        ends = pairs[hub_members]
        flip = hub[ends[:, 1]]
        a = np.where(flip, ends[:, 1], ends[:, 0])
        b = np.where(flip, ends[:, 0], ends[:, 1])
        # Colour by the non-hub end only: rank of each pair among those sharing its b.
        order = np.argsort(b, kind="stable")
        sorted_b = b[order]
        first = np.r_[True, sorted_b[1:] != sorted_b[:-1]]
        start = np.maximum.accumulate(np.where(first, np.arange(len(order)), 0))
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order)) - start
        for r in range(int(rank.max()) + 1):
            k = rank == r
            out.append(_gathered(hub_members[k], pairs, layout, hub=True, ends=(a[k], b[k])))
        tail = len(groups) - 1
        if groups and not out[tail].split and tail + 1 < len(out):
            out[tail : tail + 2] = _with_plain_pairs(out[tail + 1], out[tail])
    return out


def _with_plain_pairs(hub: PairBatch, tail: PairBatch) -> list[PairBatch]:
    """The colouring's last batch projected with the first hub batch after it, as one batch, when they share
    no vertex (the same as one after the other: a fan's 122 stretch pairs and its 64 spokes, ~8 us a sweep
    less); else both as they are."""
    if np.intersect1d(np.r_[hub.vertex_a, hub.vertex_b], np.r_[tail.vertex_a, tail.vertex_b]).size:
        return [tail, hub]
    joined = {f: np.concatenate([getattr(hub, f), getattr(tail, f)]) for f in ("member", "vertex_a", "vertex_b")}
    slots = {f: np.concatenate([getattr(hub, f), getattr(tail, f)]) for f in ("slot_a", "slot_b")}
    return [PairBatch(**joined, **slots, hub=True, plain=len(tail.member))]


def layout_batches(
    pairs: np.ndarray, members: np.ndarray, layout: Layout, n: int, specs, seed: int = 0, tails: float = 0.0
):
    """Batches of `pairs[members]`: strided views for every colour of `specs` (gridpath) whose pairs are all
    there, when the layout is a grid; the rest gathered (`gathered_batches`)."""
    grid = layout.grid
    if grid is None or len(members) == 0:
        return gathered_batches(pairs, members, layout, n, seed=seed, tails=tails)
    ends = np.sort(pairs[members], axis=1)
    colours = present_colours(list(specs), grid.order.reshape(grid.rows, grid.columns), ends[:, 0] * n + ends[:, 1])
    used = np.zeros(len(members), dtype=bool)
    strided = []
    for colour in colours or ():
        if used[colour.constraint].any():  # a pair in two colours: keep the first
            continue
        used[colour.constraint] = True
        strided.append(strided_batch(colour, members[colour.constraint], grid))
    # The irregular rest first, rows and columns last (as on a quad grid, whose edges come after its
    # diagonals): the 64² drape stretches less (triangulated 0.86 -> 0.83%, irregular 0.84 -> 0.79%).
    return gathered_batches(pairs, members[~used], layout, n, seed=seed, tails=tails) + strided


def _gathered(members, pairs, layout: Layout, *, hub: bool, ends=None, split: bool = False) -> PairBatch:
    a, b = (pairs[members, 0], pairs[members, 1]) if ends is None else ends
    order = np.argsort(layout.slot_of[a], kind="stable")  # slot order: friendlier to the cache
    members, a, b = members[order], a[order], b[order]
    return PairBatch(members, a, b, slot_a=layout.slot_of[a], slot_b=layout.slot_of[b], hub=hub, split=split)


@dataclass
class _Coefficients:
    """Per-run constants of one batch (substep length, stiffness, masses) and its scratch buffers."""

    batch: PairBatch
    scale_a: np.ndarray  # float32 w_a / (w_a + w_b + alpha~), batch-shaped
    scale_b: np.ndarray
    inv_denominator: np.ndarray  # float64 1 / (w_a + w_b + alpha~), 0 where nothing can move
    compliance: np.ndarray  # alpha~ = alpha / dt²
    rest: np.ndarray  # float32
    floor: np.ndarray | None  # lowest allowed C/L (0: one-sided), None: two-sided everywhere
    d: np.ndarray
    ratio: np.ndarray
    tmp: np.ndarray
    pa: np.ndarray  # gathered positions or strided views of the workspace
    pb: np.ndarray
    lam: np.ndarray | None = None  # XPBD multipliers (only with several iterations per substep)
    # A batch projected twice in one sweep stays XPBD: the first pass records alpha~ * lambda, the
    # second adds it to C, i.e. uses the rest length minus it. The first pass records that length,
    # L0 - alpha_inv (L0 - L) = rest_kept + alpha_inv L, so the second reads it as it is.
    alpha_inv: np.ndarray | None = None  # alpha~ / (w_a + w_b + alpha~)
    rest_kept: np.ndarray | None = None  # L0 (1 - alpha_inv)
    record: np.ndarray | None = None  # L0 - alpha~ lambda of the first pass, for the second
    replay: np.ndarray | None = None
    hub: _Hub | None = None
    split: _Split | None = None
    # A gathered non-hub batch: both ends in one (2, 3, n) block (pa, pb are its halves), gathered
    # and scattered with one call each; its update is one multiply by (-scale_a, scale_b).
    gather: _Gather | None = None
    signed_scale: np.ndarray | None = None  # (2, n) float32: (-scale_a, scale_b)
    pad: int | None = None  # the axis a strided view is padded along by one phantom pair (`chained_axis`)
    # A strided batch's ends as one (3, 2, ...) view of the workspace (`GridColour.ends`) and scratch laid
    # out in memory as that view is (a row's pairs: a, b, a, b, ...), so one add updates both ends over
    # contiguous runs (a row colour: 1.6 against 3.7 us for pa -= and pb += at 48²).
    ends: np.ndarray | None = None
    both: np.ndarray | None = None


@dataclass
class _Gather:
    """A gathered batch's (2, 3, n) block of both ends and its indices into the flattened workspace.

    End-major, so each end's (3, n) is contiguous: pa - pb and the update's multiply and add iterate plain
    blocks (768 pairs: ~1 us a batch less than on the halves of a (3, 2n) block; the same arithmetic)."""

    rows: np.ndarray  # (2, 3, n): the a-ends, then the b-ends
    flat: np.ndarray  # (2 * 3 * n,) indices into the flattened (3, N) workspace
    pairs: np.ndarray  # rows (2, 3, n)
    both: np.ndarray  # scratch (2, 3, n)
    flat_rows: np.ndarray  # rows as (2 * 3 * n,)

    @staticmethod
    def of(batch: PairBatch, width: int) -> _Gather:
        n = len(batch.slot_a)
        rows = np.empty((2, 3, n), np.float32)
        slots = np.stack([batch.slot_a, batch.slot_b])[:, None, :]
        flat = (slots + width * np.arange(3)[None, :, None]).reshape(-1)
        return _Gather(rows, flat, rows, np.empty((2, 3, n), np.float32), rows.reshape(-1))


@dataclass
class _Hub:
    """A hub batch's accumulation over the flattened (3, N) workspace: each copy's bin (hub and
    coordinate), the bins' workspace indices and copy counts, and where the b-ends go back."""

    bins: np.ndarray  # (3m,) bin of each hub pair's a-end coordinate: coordinate * hubs + hub
    flat_hubs: np.ndarray  # (3 * hubs,) each bin's index into the flattened workspace
    count: np.ndarray  # (3 * hubs,) float64 copies of each hub in the batch
    flat_b: np.ndarray  # (3, n) the b-ends' indices into the flattened workspace
    before: np.ndarray  # scratch (3, m): the hub pairs' a-ends before the projection
    at_hubs: int  # m: the batch's first m pairs are at hubs (the rest `PairBatch.plain`)
    flat_plain: np.ndarray  # (3, n - m) the plain pairs' a-ends' indices, scattered as they are

    @staticmethod
    def of(batch: PairBatch, gather: _Gather, width: int) -> _Hub:
        n = len(batch.slot_a)
        m = n - batch.plain
        slots, index = np.unique(batch.slot_a[:m], return_inverse=True)
        h = len(slots)
        rows = np.arange(3)[:, None]
        ends = gather.flat.reshape(2, 3, n)
        return _Hub(
            (index[None, :] + h * rows).reshape(-1),
            (slots[None, :] + width * rows).reshape(-1),
            np.tile(np.bincount(index).astype(np.float64), 3),
            ends[1],
            np.empty((3, m), np.float32),
            m,
            np.ascontiguousarray(ends[0][:, m:]),
        )


@dataclass
class _Split:
    """A split batch's accumulation: each copy's bin (coordinate, vertex) in the (2, 3, n) block, the bins'
    indices into the flattened workspace, and scratch."""

    bins: np.ndarray  # (2 * 3 * n,)
    flat_targets: np.ndarray  # (3 * vertices,)
    share: np.ndarray  # (2, n) float32 1 / copies of each end's vertex in the batch
    before: np.ndarray  # scratch (2, 3, n)
    moved: np.ndarray  # scratch (3 * vertices,) float32

    @staticmethod
    def of(batch: PairBatch, gather: _Gather, width: int) -> _Split:
        n = len(batch.slot_a)
        slots, index = np.unique(np.concatenate([batch.slot_a, batch.slot_b]), return_inverse=True)
        u = len(slots)
        rows = np.arange(3)[:, None]
        count = np.bincount(index, minlength=u)[index].reshape(2, n)
        return _Split(
            (index.reshape(2, 1, n) + u * rows[None]).reshape(-1),  # (a bin's copies in the same order)
            (slots[None, :] + width * rows).reshape(-1),
            (1.0 / count).astype(np.float32),
            np.empty((2, 3, n), np.float32),
            np.empty(3 * u, np.float32),
        )


def _copies(batch: PairBatch) -> tuple[np.ndarray, np.ndarray]:
    """How often each end's vertex appears in a split batch (either end)."""
    both = np.concatenate([batch.vertex_a, batch.vertex_b])
    _, index = np.unique(both, return_inverse=True)
    count = np.bincount(index)[index]
    return count[: len(batch.vertex_a)], count[len(batch.vertex_a) :]


class PreparedPairs:
    """A pair family ready to project on one workspace, for one (params, substep length)."""

    _kernels_for: np.ndarray | None = None  # the buffer `_kernels` project on (made on the first sweep)
    _kernels: list = []

    def __init__(self, batches, rest, compliance, floor, inv_mass, buffer, grid, iterations: int, broken_of=None):
        self.batches = tuple(batches)
        self.rest, self.compliance, self.floor = rest, compliance, floor
        self.iterations = iterations
        self.broken_of = broken_of  # model constraints' broken mask -> this family's pairs' (None: the same)
        self.coefficients = [self._coefficients(b, inv_mass, buffer, grid) for b in self.batches]

    def _coefficients(self, batch: PairBatch, inv_mass, buffer, grid) -> _Coefficients:
        gather = None
        pad = None
        ends = None
        if batch.view is not None:
            pad = chained_axis(batch.view, grid, _room_after(buffer))
            padded, workspace = _padded_view(batch.view, pad), buffer.reshape(3, grid.rows, grid.columns)
            pa, pb = padded.views(workspace)
            ends = padded.ends(workspace)
        else:
            gather = _Gather.of(batch, buffer.shape[1])
            pa, pb = gather.pairs[0], gather.pairs[1]
        split = _Split.of(batch, gather, buffer.shape[1]) if batch.split and gather is not None else None
        shape = pa.shape[1:]
        shape3 = (3, *shape)
        scale_a, scale_b, inv, compliance = _pad(self._scales(batch, inv_mass, None), pad, 0.0)
        co = _Coefficients(
            batch,
            scale_a,
            scale_b,
            inv,
            compliance,
            rest=_pad(self.rest[batch.member].astype(np.float32), pad, 1.0),
            floor=None if self.floor is None else _pad(self.floor[batch.member].astype(np.float32), pad, 0.0),
            d=_under_eps(shape),
            ratio=np.empty(shape, np.float32),
            tmp=np.empty(shape3, np.float32),
            pa=pa,
            pb=pb,
            lam=np.zeros(shape) if self.iterations > 1 else None,
            gather=gather,
            signed_scale=_signed(gather, scale_a, scale_b, split, strided=ends is not None),
            split=split,
        )
        co.pad = pad
        if ends is not None:
            co.ends, co.both = ends, np.empty_like(ends)  # (order K: the view's memory order)
        if batch.hub:
            assert gather is not None
            co.hub = _Hub.of(batch, gather, buffer.shape[1])
        return co

    def _scales(self, batch: PairBatch, inv_mass, broken):
        w_a, w_b = inv_mass[batch.vertex_a], inv_mass[batch.vertex_b]
        if batch.hub:  # mass splitting: each copy of a hub carries 1/count of its mass
            _, index = np.unique(batch.vertex_a, return_inverse=True)
            w_a = w_a * np.bincount(index)[index]
        if batch.split:  # every vertex's copies, at either end
            count_a, count_b = _copies(batch)
            w_a, w_b = w_a * count_a, w_b * count_b
        compliance = self.compliance[batch.member]
        denominator = w_a + w_b + compliance
        inv = np.where(denominator > 0, 1.0 / np.where(denominator > 0, denominator, 1.0), 0.0)
        if broken is not None:
            inv = np.where(broken[batch.member], 0.0, inv)
        return (w_a * inv).astype(np.float32), (w_b * inv).astype(np.float32), inv, compliance

    def overridden(self, inv_mass: np.ndarray, broken: np.ndarray | None) -> PreparedPairs:
        """The same batches and scratch with other inverse masses and/or pairs switched off (`broken`)."""
        out = object.__new__(PreparedPairs)
        out.batches, out.rest, out.compliance, out.floor = self.batches, self.rest, self.compliance, self.floor
        out.iterations, out.broken_of = self.iterations, self.broken_of
        if broken is not None and self.broken_of is not None:
            broken = self.broken_of(broken)
        out.coefficients = []
        for co in self.coefficients:
            scale_a, scale_b, inv, compliance = _pad(self._scales(co.batch, inv_mass, broken), co.pad, 0.0)
            alpha_inv = None if co.alpha_inv is None else (compliance * inv).astype(np.float32)
            rest_kept = None if alpha_inv is None else _kept(co.rest, alpha_inv)
            out.coefficients.append(
                replace(
                    co,
                    scale_a=scale_a,
                    scale_b=scale_b,
                    inv_denominator=inv,
                    compliance=compliance,
                    alpha_inv=alpha_inv,
                    rest_kept=rest_kept,
                    signed_scale=_signed(co.gather, scale_a, scale_b, co.split, strided=co.ends is not None),
                )
            )
        return out

    def repeated(self, which) -> PreparedPairs:
        """A second pass over the batches `which(batch)` selects, later in the same sweep (XPBD-consistent).

        This pass then records its multipliers for the second one; they share scratch and multipliers.
        """
        out = object.__new__(PreparedPairs)
        out.batches, out.rest, out.compliance, out.floor = self.batches, self.rest, self.compliance, self.floor
        out.iterations, out.broken_of = self.iterations, self.broken_of
        out.coefficients = []
        for co in self.coefficients:
            if which(co.batch):
                co.alpha_inv = (co.compliance * co.inv_denominator).astype(np.float32)
                co.rest_kept = _kept(co.rest, co.alpha_inv)
                co.record = co.rest.copy()  # (alpha~ lambda = 0 until the first pass records it)
                out.coefficients.append(replace(co, record=None, replay=co.record))
        self._kernels_for = None  # this pass's kernels record now
        return out

    def begin_substep(self) -> None:
        for co in self.coefficients:
            if co.lam is not None:
                co.lam[...] = 0.0

    def project(self, buffer: np.ndarray) -> None:
        if self._kernels_for is not buffer:
            self._kernels = [_kernel(co, buffer) for co in self.coefficients]
            self._kernels_for = buffer
        for kernel in self._kernels:
            kernel()


def _project_batch(co: _Coefficients, flat_buffer: np.ndarray) -> None:
    """Project one batch of any kind in place on the flattened (3, N) workspace, step by step."""
    gather = co.gather
    if gather is None:  # a strided batch
        _project(co.pa, co.pb, co)
        return
    # One gather for both ends; mode="clip" skips the bounds check (the slots are valid): ~35% quicker.
    # (The method, not np.take: its Python wrapper costs ~0.5 us a call.)
    flat_buffer.take(gather.flat, out=gather.flat_rows, mode="clip")
    split = co.split
    if split is not None:  # each vertex moves by the mean of its copies' corrections (signed_scale has the 1/count)
        np.copyto(split.before, gather.rows)
        _project(co.pa, co.pb, co)
        np.subtract(gather.rows, split.before, out=split.before)
        moved = np.bincount(split.bins, weights=split.before.reshape(-1), minlength=len(split.flat_targets))
        flat_buffer[split.flat_targets] += moved
        return
    hub = co.hub
    if hub is None:
        _project(co.pa, co.pb, co)
        flat_buffer[gather.flat] = gather.flat_rows  # one scatter for both ends
        return
    at_hubs = co.pa[:, : hub.at_hubs]
    np.copyto(hub.before, at_hubs)
    _project(co.pa, co.pb, co)
    flat_buffer[hub.flat_b] = co.pb
    if hub.at_hubs < co.pa.shape[1]:
        flat_buffer[hub.flat_plain] = co.pa[:, hub.at_hubs :]
    np.subtract(at_hubs, hub.before, out=hub.before)  # each copy's correction of its hub
    moved = np.bincount(hub.bins, weights=hub.before.reshape(-1), minlength=len(hub.count))
    flat_buffer[hub.flat_hubs] += np.divide(moved, hub.count, out=moved)  # the mean of the copies' corrections


def _kernel(co: _Coefficients, buffer: np.ndarray):
    """A batch's projection as one closure over its arrays: `_project_batch`'s arithmetic, the same calls
    in the same order, with no attribute lookups and every ufunc's output passed by position (~60 ns
    less a call: ~1 us a batch, 11-14 calls each)."""
    flat_buffer = buffer.reshape(-1)
    if co.lam is not None:  # several iterations: step by step
        return lambda: _project_batch(co, flat_buffer)
    subtract, multiply, divide, add, sqrt, maximum = np.subtract, np.multiply, np.divide, np.add, np.sqrt, np.maximum
    squared = _squared_lengths
    pa, pb, d, ratio, rest = co.pa, co.pb, co.d, co.ratio, co.rest
    floor = co.floor
    if floor is not None and not floor.any() and not np.signbit(floor).any():
        floor = _ZERO32  # one-sided everywhere: max(ratio, 0) with a 0-d operand (the same values)
    record, replay = co.record, co.replay
    alpha_inv = _ONE32 if co.alpha_inv is None else co.alpha_inv  # (read only when recording)
    rest_kept = rest if co.rest_kept is None else co.rest_kept  # (read only when recording)
    held = rest if replay is None else replay  # L0, or the first pass's L0 - alpha~ lambda
    gather = co.gather
    # One-sided pairs (the long-range limits): max(1 - L0 / max(L, eps), 0) is 1 - L0 / max(L, L0) when every
    # L0 >= eps, one maximum instead of two (the same values: L0 / L0 is exactly 1).
    shortest = np.maximum(rest, _EPS32) if floor is _ZERO32 and record is None and replay is None else None
    if shortest is not None and not (rest >= _EPS32).all():
        shortest = None
    # 1 - L0 / L with ones as large as the batch: a 0-d operand costs a ufunc ~0.2 us more (the same values).
    ones = np.ones(ratio.shape, np.float32)
    # max(L, eps) as sqrt(L² + eps²): the squared lengths sum d's fourth row of eps too (`_under_eps`), so no
    # maximum call (~0.5 us a batch). The same float32 values wherever L² >= 2e-17 (eps² is then below half an
    # ulp of it): for any pair longer than 5 nm; shorter ones divide by ~eps either way.
    summed = d if shortest is not None else d.base
    assert summed is not None and len(summed) == 3 + (shortest is None)

    def ratio_of_lengths() -> None:  # ratio = C / L = 1 - L0 / L, floored
        subtract(pa, pb, d)
        squared("k...,k...->...", summed, summed, out=ratio)
        sqrt(ratio, ratio)
        if shortest is not None:
            maximum(ratio, shortest, ratio)
            divide(rest, ratio, ratio)
            subtract(ones, ratio, ratio)
            multiply(d, ratio, d)
            return
        if record is not None:
            multiply(ratio, alpha_inv, record)
            add(record, rest_kept, record)
        divide(held, ratio, ratio)
        subtract(ones, ratio, ratio)
        if floor is not None:
            maximum(ratio, floor, ratio)
        multiply(d, ratio, d)

    if gather is None:
        assert co.ends is not None and co.both is not None and co.signed_scale is not None
        ends: np.ndarray = co.ends  # (annotated: the closure below keeps the narrowed type)
        update: np.ndarray = co.both
        # Into each half of `update` apart: one multiply into both halves broadcasts d along the inner axis
        # of a row colour's memory (2 long: 35 us against 2 x 1.2).
        minus_a, plus_b = co.signed_scale[0], co.signed_scale[1]
        update_a, update_b = update[:, 0], update[:, 1]

        def strided() -> None:  # pa -= d scale_a, pb += d scale_b in one add (the same values: -x * s is -(x * s))
            ratio_of_lengths()
            multiply(d, minus_a, update_a)
            multiply(d, plus_b, update_b)
            add(ends, update, ends)

        if d[0].size >= BROADCAST_UPDATE_BELOW:
            return strided
        # A small batch: both halves of the update in one multiply, d broadcast over a C-ordered (3, 2, ...) block
        # (its inner axis the view's own, not the 2 long one of `update`), then the same add (the same products
        # and sums: 24², the update's three calls ~10 -> ~8.5 us a batch; slower from 64²'s ~2,000 pairs).
        pair_d = d[:, None]
        signed_c = np.ascontiguousarray(co.signed_scale)
        block = np.empty((3, *signed_c.shape), np.float32)

        def strided_small() -> None:
            ratio_of_lengths()
            multiply(pair_d, signed_c, block)
            add(ends, block, ends)

        return strided_small
    take, put = flat_buffer.take, flat_buffer.__setitem__
    flat, flat_rows, both, pairs, signed = gather.flat, gather.flat_rows, gather.both, gather.pairs, co.signed_scale
    assert signed is not None
    # (-scale_a, scale_b) repeated for each coordinate: d (3, n) times it broadcasts one operand, not both
    # (768 pairs: 2.1 -> 1.3 us; the same products).
    signed = np.ascontiguousarray(np.broadcast_to(signed[:, None, :], (2, 3, signed.shape[1])))
    hub = co.hub
    if hub is not None:  # `_project_batch`'s hub arithmetic, the same calls in the same order (~5 us less a batch)
        before, flat_b, bins, count, flat_hubs = hub.before, hub.flat_b, hub.bins, hub.count, hub.flat_hubs
        before_flat, bins_width, bincount, copyto = hub.before.reshape(-1), len(hub.count), np.bincount, np.copyto
        at_hubs, plain, flat_plain = pa[:, : hub.at_hubs], pa[:, hub.at_hubs :], hub.flat_plain
        with_plain = plain.shape[1] > 0  # pairs sharing no vertex with the hubs, projected in the same batch

        def gathered_hub() -> None:  # the b-ends scattered; each hub moves by the mean of its copies' corrections
            take(flat, None, flat_rows, "clip")
            copyto(before, at_hubs)
            ratio_of_lengths()
            multiply(d, signed, both)
            add(pairs, both, pairs)
            put(flat_b, pb)
            if with_plain:  # (their a-ends scattered as they are)
                put(flat_plain, plain)
            subtract(at_hubs, before, before)
            moved = bincount(bins, before_flat, bins_width)
            flat_buffer[flat_hubs] += divide(moved, count, moved)

        return gathered_hub
    split = co.split
    if split is not None:
        bins, targets, moved, copies = split.bins, split.flat_targets, split.moved, both.reshape(-1)
        bincount, width = np.bincount, len(split.flat_targets)

        def gathered_split() -> None:  # each vertex moves by the mean of its copies' corrections
            take(flat, None, flat_rows, "clip")
            ratio_of_lengths()
            multiply(d, signed, both)
            take(targets, None, moved, "clip")
            add(moved, bincount(bins, copies, width), moved, casting="same_kind")
            put(targets, moved)

        return gathered_split

    def gathered() -> None:
        take(flat, None, flat_rows, "clip")
        ratio_of_lengths()
        multiply(d, signed, both)
        add(pairs, both, pairs)
        put(flat, flat_rows)

    return gathered


def _project(pa: np.ndarray, pb: np.ndarray, co: _Coefficients) -> None:
    """Project the pairs (pa[:, k], pb[:, k]) in place."""
    d, ratio, tmp = co.d, co.ratio, co.tmp
    np.subtract(pa, pb, out=d)
    _squared_lengths("k...,k...->...", d, d, out=ratio)
    np.sqrt(ratio, out=ratio)
    if co.lam is None:
        # One iteration: the multiplier starts at 0, so ratio = C / L = 1 - L0 / L.
        np.maximum(ratio, _EPS32, out=ratio)
        if co.record is not None:  # L0 - alpha~ * lambda = L0 - alpha_inv * (L0 - L)
            assert co.alpha_inv is not None and co.rest_kept is not None
            np.multiply(ratio, co.alpha_inv, out=co.record)
            co.record += co.rest_kept
        if co.replay is not None:  # C + alpha~ * lambda = L - (L0 - alpha~ * lambda)
            np.divide(co.replay, ratio, out=ratio)
        else:
            np.divide(co.rest, ratio, out=ratio)
        np.subtract(_ONE32, ratio, out=ratio)
        if co.floor is not None:
            np.maximum(ratio, co.floor, out=ratio)
    else:
        length = ratio.astype(np.float64)
        c = length - co.rest
        if co.floor is not None:
            c = np.maximum(c, co.floor)
        dlambda = -(c + co.compliance * co.lam) * co.inv_denominator
        co.lam += dlambda
        correction = np.where(co.inv_denominator > 0, -dlambda / np.maximum(co.inv_denominator, _EPS), 0.0)
        np.divide(correction, np.maximum(length, _EPS), out=ratio, casting="unsafe")
    d *= ratio
    gather = co.gather
    if gather is not None and co.signed_scale is not None:  # pa -= d scale_a, pb += d scale_b at once
        np.multiply(d, co.signed_scale[:, None, :], out=gather.both)
        gather.pairs += gather.both
        return
    np.multiply(d, co.scale_a, out=tmp)
    pa -= tmp
    np.multiply(d, co.scale_b, out=tmp)
    pb += tmp


def chained_axis(colour: GridColour, grid, room: int) -> int | None:
    """The axis along which one more pair per grid row would chain a strided colour's rows into one run.

    A colour of pairs every s columns along a row that stops one step short of the row's end (the odd
    edges (1, 2), (3, 4), ... of an even row; a long-range span's last block) cannot be iterated as one
    run: NumPy's inner loop then covers one row (~35 ns of overhead each, 11 ufunc calls a batch:
    2x the time of a colour that chains, measured at 64² and 128²). With one phantom pair at the end
    of each row, whose ends are the row's last slot and the next row's first (or the workspace's
    padding after its last row) and whose coefficients are zero, the rows chain. Only when those
    slots are in no pair of the colour, so the phantoms leave every position as it was (pa -= 0).
    """
    if room < grid.columns:
        return None
    columns = grid.columns
    axis = len(colour.shape) - 1  # the inner loop's axis: chained with the rows before it
    step_r, step_c = colour.steps[axis]
    if axis == 0 or colour.steps[axis - 1] != (1, 0) or step_r != 0 or step_c <= 0:
        return None
    if (colour.shape[axis] + 1) * step_c == columns:
        slots = np.arange(grid.rows * columns + columns).astype(np.int64)  # slots beyond: the padding
        grid_slots = slots[: grid.rows * columns].reshape(grid.rows, columns)
        real = np.concatenate([v.reshape(-1) for v in colour.views(grid_slots)])
        ends = _padded_view(colour, axis).views(grid_slots)
        phantom = np.concatenate([np.take(v, [colour.shape[axis]], axis=axis).reshape(-1) for v in ends])
        # Past the last row is the next coordinate's first row (or, after the last, the padding).
        phantom %= grid.rows * columns
        if not np.isin(phantom, real).any() and len(np.unique(phantom)) == len(phantom):
            return axis
    return None


def _padded_view(colour: GridColour, axis: int | None) -> GridColour:
    if axis is None:
        return colour
    shape = tuple(n + (k == axis) for k, n in enumerate(colour.shape))
    return GridColour(colour.start, shape, colour.steps, colour.offset, colour.constraint)


def _under_eps(shape) -> np.ndarray:
    """A batch's (3, ...) difference scratch: the first rows of a (4, ...) block whose last row is eps."""
    block = np.empty((4, *shape), np.float32)
    block[3] = _EPS32
    return block[:3]


def _pad(values, axis: int | None, fill: float):
    """Batch-shaped arrays (or a tuple of them) with one more entry of `fill` along `axis` (None: as they are)."""
    if isinstance(values, tuple):
        return tuple(_pad(v, axis, fill) for v in values)
    if axis is None:
        return values
    widths = [(0, 1) if k == axis else (0, 0) for k in range(values.ndim)]
    return np.pad(values, widths, constant_values=fill)


def _room_after(buffer: np.ndarray) -> int:
    """How many elements of its allocation follow a C-contiguous buffer that starts it (0 if unknown)."""
    base = buffer.base
    if base is None or not buffer.flags.c_contiguous or base.ndim != 1 or not base.flags.c_contiguous:
        return 0
    if buffer.__array_interface__["data"][0] != base.__array_interface__["data"][0]:
        return 0
    return base.size - buffer.size


def _signed(gather, scale_a, scale_b, split=None, strided: bool = False):
    """(-scale_a, scale_b) of a gathered or strided batch (a split batch's over each vertex's copies: their
    mean moves it)."""
    if gather is None and not strided:
        return None
    signed = np.stack([-scale_a, scale_b])
    return signed if split is None else signed * split.share


def _kept(rest: np.ndarray, alpha_inv: np.ndarray) -> np.ndarray:
    """L0 (1 - alpha_inv) in float32: the rest length a recording pass adds alpha_inv L to."""
    return (rest.astype(np.float64) * (1.0 - alpha_inv.astype(np.float64))).astype(np.float32)


def hard_compliance() -> float:
    return _HARD

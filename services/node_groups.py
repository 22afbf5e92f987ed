"""Geometry Nodes groups the add-on builds from Python (the preview's and the tears')."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import bpy


def shared(name: str, nodes: int, build: Callable[[Any, Any, Any], None]) -> Any:
    """The Geometry Nodes group `name`, built by build(group, group input, group output) on first use.

    A group with fewer than `nodes` nodes (someone emptied it) is built again. It has one Geometry
    input and one Geometry output.
    """
    group: Any = bpy.data.node_groups.get(name)
    if group is not None and group.bl_idname == "GeometryNodeTree" and len(group.nodes) >= nodes:
        return group
    if group is None or group.bl_idname != "GeometryNodeTree":
        group = bpy.data.node_groups.new(name, "GeometryNodeTree")
    group.nodes.clear()
    group.interface.clear()
    interface: Any = group.interface  # the stubs do not know socket type names
    interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
    interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    build(group, group.nodes.new("NodeGroupInput"), group.nodes.new("NodeGroupOutput"))
    return group


def named_attribute(group, name: str, data_type: str) -> Any:
    """A Named Attribute node reading `name` as `data_type` (outputs "Attribute" and "Exists")."""
    node = group.nodes.new("GeometryNodeInputNamedAttribute")
    node.data_type = data_type
    node.inputs["Name"].default_value = name
    return node

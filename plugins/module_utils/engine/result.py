# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One node's result, the one place its common keys are written, and the one rule that names a node.

A result is a plain dict, as Ansible serialises it: node (the node as the task shows it, None for one it has not
read), changed, error (None, or the message that names the node and what went wrong), then the parts its module
returns (plan and transitions of a move, diff, ...: each module's RETURN lists its own). Waves mark it with wave and
started (fleet/waves.py); fleet/outcome.py makes the task's result of the results. Every function that changes a
result changes it in place and returns it.

Built here, not in fleet/: the engine's Job is the lowest code that makes a node's result.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


def node_label(node, fallback=None):
    """How the task names a node in its messages and progress lines: its name, else its UUID; fallback (what the
    task gave for it) when there is no node."""
    node = node or {}
    return node.get('name') or node.get('uuid') or fallback


def node_name(result, fallback):
    """A node's name in a diff header or a wave: its name as Ironic holds it or as the task declares it (the name
    part of baremetal_node), else fallback (how the task names it)."""
    return (result.get('node') or {}).get('name') or result.get('name') or fallback


def node_result(node, changed=False, error=None, **parts):
    """A node's result: the node, whether the task changed it, its error, and its module's parts."""
    return dict(node=node, changed=changed, error=error, **parts)


def fail(result, error, **parts):
    """Record a node's failure on its result, with the parts the failure sets (a partial result's changed ...)."""
    result.update(parts, error=error)
    return result


def mark(result, wave, started):
    """Mark a node's result with its wave (its number, None for a node that needs no change) and whether the wave
    started."""
    result.update(wave=wave, started=started)
    return result


def hold(result):
    """A node whose wave never starts (the failures were over the budget): as its plan left it, unchanged, no error."""
    result.update(changed=False, error=None)
    return result


def held(result):
    """Whether a node was held back: it is in a wave that never started."""
    return bool(result.get('wave')) and not result.get('started')

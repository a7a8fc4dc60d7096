# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a task that moves nodes to a provision state makes of its Targets (fleet/runner.py): each node's state
and the provision Options it is moved with, the task's unless an element of nodes gives its own."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine import options as provision_options, provision, states


def defaults(state, options):
    """The per-node settings of a task moving nodes to state with options (an element of nodes may override them)."""
    return dict(state=state, **dict((name, getattr(options, name)) for name in provision_options.NODE_OPTION_TYPES))


# What each per-node setting of an element of nodes must be (runner.targets_from_elements).
TYPES = dict(state=tuple(states.DECLARABLE_STATES), **provision_options.NODE_OPTION_TYPES)


def move(target, options):
    """The provision.Goal of a runner Target: its state, and the task's options with the element's own."""
    settings = target.settings
    own = dict((name, settings[name]) for name in provision_options.NODE_OPTION_TYPES)
    return provision.Goal(target.ident, settings['state'], options.overridden(**own))

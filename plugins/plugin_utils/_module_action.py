# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The action in front of every module of this collection: the module's payload is built with the garbage
collector paused.

ansible-core builds a module's payload (the AnsiballZ zip: the module and every module_utils file its imports
reach) once per module and run, in the worker process of the first task that runs the module
(ActionBase._configure_module, then recursive_finder). It parses each of those files into a syntax tree whose nodes
point back to their parents: cycles of objects that only the garbage collector frees, and the collector ran through
the worker's whole heap again and again while they were made. For baremetal_node (72 files of this collection) that
was more than half of the build: 0.16-0.23 s of 0.32-0.39 s. With the collector paused, it takes 0.14-0.18 s, and
one collection after it frees the trees; the worker's peak memory is about 16 MiB higher for that moment
(bench/README.md, "The controller's payload build and the garbage collector").
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import gc

from ansible.plugins.action import ActionBase
from ansible.plugins.action.normal import ActionModule as NormalAction


class CollectorPausedPayload(ActionBase):
    """An action that builds the module's payload (ActionBase._configure_module) with the garbage collector paused,
    and puts the collector back as it was, also when the build fails; its run is the subclass's."""

    def _configure_module(self, *args, **kwargs):
        enabled = gc.isenabled()
        gc.disable()
        try:
            return super(CollectorPausedPayload, self)._configure_module(*args, **kwargs)
        finally:
            if enabled:
                gc.enable()


class ModuleAction(CollectorPausedPayload, NormalAction):
    """Runs the module of the same name as Ansible runs a module without an action plugin (ansible.builtin.normal),
    its payload built with the collector paused: the action of the modules that have no progress to show."""

# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Runs baremetal.lifecycle.baremetal_deploy_template as Ansible runs a module, its payload built with the garbage
collector paused."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.plugin_utils._module_action import ModuleAction


class ActionModule(ModuleAction):
    pass

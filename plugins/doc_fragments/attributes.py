# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    # Every module is in the action group of meta/runtime.yml (tests/unit/plugins/modules/test_every_module.py).
    DOCUMENTATION = r'''
options: {}
attributes:
  action_group:
    description: Use C(group/baremetal.lifecycle.baremetal) in C(module_defaults) to set defaults for this module,
      such as the connection options.
    support: full
    membership:
      - baremetal.lifecycle.baremetal
'''

    # A module that only reads.
    INFO_MODULE = r'''
options: {}
attributes:
  check_mode:
    support: full
    description: The module only reads.
  diff_mode:
    support: none
    description: The module only reads.
'''

# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The filter fleet_declared: a fleet description read and validated as the fleet role reads it, reduced to what
baremetal_fleet_report compares (no driver_info, no secret leaves it for the report's task).

Documented in fleet_declared.yml next to this file.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.filter.fleet_errors import fleet_errors
from ansible_collections.baremetal.lifecycle.plugins.filter.fleet_plan import _plain, _read
from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.drift import declared_subset
from ansible_collections.baremetal.lifecycle.plugins.plugin_utils._compat import with_vault


def fleet_declared(fleet, schema):
    """{'errors': every problem of the description (as fleet_errors words them), 'nodes': each node's name, uuid and
    the fields drift compares, in the order of the description ([] when there are errors)}."""
    nodes = _read(fleet)
    errors = fleet_errors(nodes, _plain(schema))
    return {'errors': errors, 'nodes': [] if errors else [declared_subset(node) for node in nodes]}


class FilterModule(object):

    def filters(self):
        return {'fleet_declared': with_vault(fleet_declared)}

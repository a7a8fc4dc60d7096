# -*- coding: utf-8 -*-
"""baremetal_node's parameters as Ansible passes them, and the states a node declares: helpers of the node tests."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


def params(**given_params):
    """Module parameters as Ansible passes them: every option present, None when not given."""
    full = dict((name, None) for name in ('driver', 'driver_info', 'properties', 'resource_class', 'interfaces',
                                          'ports', 'traits', 'extra', 'instance_info', 'conductor_group', 'owner',
                                          'lessee', 'description', 'automated_clean'))
    full.update(given_params)
    return full


def port(address, **attributes):
    entry = dict(pxe_enabled=None, physical_network=None, local_link_connection=None)
    entry.update(attributes, address=address)
    return entry


def states(provision_state=None, maintenance=None, maintenance_reason=None, power=None):
    return dict(provision_state=provision_state, maintenance=maintenance, maintenance_reason=maintenance_reason,
                power=power)

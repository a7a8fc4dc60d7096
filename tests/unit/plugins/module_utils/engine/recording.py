# -*- coding: utf-8 -*-
"""Helpers of the engine layer's tests: a node as Ironic shows it, the verbs of a plan, a client that records its calls."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


def node(state, **fields):
    return dict({'uuid': 'u1', 'name': 'n1', 'provision_state': state, 'target_provision_state': None}, **fields)


def verbs(steps):
    return [step.verb for step in steps]


IMAGE = {'image_source': 'http://127.0.0.1:9/image.qcow2'}


class RecordingClient(object):
    def __init__(self, inventory=None, properties=None):
        self.calls = []
        self.inventory = inventory
        self.properties = properties or {}
        self.instance_info = {'image_checksum': 'kept'}

    def set_provision_state(self, uuid, verb, **arguments):
        self.calls.append(('provision', uuid, verb, arguments))

    def unset_maintenance(self, uuid, retry_busy=True):
        self.calls.append(('unset_maintenance', uuid))

    def update_node(self, uuid, patch, retry_busy=True):
        self.calls.append(('update_node', uuid, patch))
        self.instance_info = dict(self.instance_info, **dict(
            (op['path'].split('/')[-1], op['value']) for op in patch if op['op'] == 'add'))

    def get_node(self, uuid, fields=None):
        self.calls.append(('get_node', uuid, fields))
        return {'uuid': uuid, 'properties': self.properties, 'instance_info': self.instance_info}

    def get_inventory(self, uuid):
        return self.inventory

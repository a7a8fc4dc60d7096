# -*- coding: utf-8 -*-
"""The filter fleet_declared: a fleet file read and validated as the fleet role reads it, reduced to what the fleet
report compares."""

import json
import os

from ansible_collections.baremetal.lifecycle.plugins.filter.fleet_declared import fleet_declared

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
with open(os.path.join(ROOT, 'roles', 'fleet', 'files', 'fleet.schema.json')) as _handle:
    SCHEMA = json.load(_handle)

FLEET_YAML = '''
- name: rack1-node01
  driver: redfish
  driver_info: {redfish_address: "http://127.0.0.1:8000", redfish_username: admin, redfish_password: bmc-pw}
  resource_class: gold
  traits: [CUSTOM_RACK1]
  properties: {cpus: 8}
  provision_state: active
  bios_settings: {ProcTurboMode: Enabled}
  raid: {}
  firmware: [{component: bmc, version: "2.1", url: "http://127.0.0.1:9/bmc.bin"}]
- {name: rack1-node02, driver: fake-hardware, uuid: 11111111-2222-3333-4444-555555555555, maintenance: true}
'''


def test_a_fleet_file_gives_the_compared_fields_and_never_driver_info():
    result = fleet_declared(FLEET_YAML, SCHEMA)
    assert result == {'errors': [], 'nodes': [
        {'name': 'rack1-node01', 'resource_class': 'gold', 'traits': ['CUSTOM_RACK1'], 'properties': {'cpus': 8},
         'bios_settings': {'ProcTurboMode': 'Enabled'}, 'raid': {},
         'firmware': [{'component': 'bmc', 'version': '2.1', 'url': 'http://127.0.0.1:9/bmc.bin'}]},
        {'name': 'rack1-node02', 'uuid': '11111111-2222-3333-4444-555555555555'}]}
    assert 'bmc-pw' not in str(result)


def test_an_invalid_fleet_gives_the_role_s_errors_and_no_node():
    result = fleet_declared([{'name': 'n1', 'driver': 'fake-hardware', 'trait': ['X']}], SCHEMA)
    assert result['nodes'] == []
    assert result['errors'] == ["fleet[0] (n1): trait: is not a known field (did you mean 'traits'?)"]

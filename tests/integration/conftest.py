# -*- coding: utf-8 -*-
"""Integration-test fixtures on top of tests/conftest.py (``ironic``, ``run_module``, ``run_playbook``)."""

from __future__ import annotations

import itertools
import os
import uuid

import pytest
from firmware_fleet import FIRMWARE_IRONIC, FIRMWARE_SYNC_POWER_STATE_INTERVAL
from redfish import FirmwareImages

_serial = itertools.count(1)


@pytest.fixture(scope='module')
def firmware_ironic(shared_ironic):
    """The module's shared Ironic with the Redfish firmware interface tuned for the tests (firmware_fleet)."""
    return shared_ironic(ironic_standalone_config_overrides=FIRMWARE_IRONIC,
                         ironic_standalone_sync_power_state_interval=FIRMWARE_SYNC_POWER_STATE_INTERVAL)


@pytest.fixture(scope='module')
def firmware_images():
    """A loopback server of firmware images (redfish.FirmwareImages), stopped after the module."""
    served = FirmwareImages()
    yield served
    served.stop()


@pytest.fixture
def fresh_node(ironic):
    """Factory ``fresh_node(name=None, driver='fake-hardware', **fields)``: creates a node with raw REST
    (``POST /v1/nodes`` with ``fields``, e.g. ``resource_class``, ``driver_info``, ``properties``, interfaces) and
    returns the created node as returned by Ironic (a dict with ``uuid``, ``name``, ``provision_state`` (enroll),
    ...). ``name`` defaults to a unique ``test-<pid>-<n>-<hex>``. Nodes are deleted after the test, best effort
    (put in maintenance first when Ironic refuses; errors are ignored: the whole Ironic is thrown away at the end
    of the session anyway)."""
    created = []

    def create(name=None, driver='fake-hardware', **fields):
        if name is None:
            name = 'test-%d-%d-%s' % (os.getpid(), next(_serial), uuid.uuid4().hex[:6])
        node = ironic.api('POST', '/v1/nodes', dict(fields, name=name, driver=driver))
        created.append(node['uuid'])
        return node

    yield create

    for node_uuid in created:
        try:
            ironic.api('DELETE', '/v1/nodes/%s' % node_uuid)
        except AssertionError:
            try:
                ironic.api('PUT', '/v1/nodes/%s/maintenance' % node_uuid, {'reason': 'test cleanup'}, expect=None)
                ironic.api('DELETE', '/v1/nodes/%s' % node_uuid, expect=None)
            except OSError:
                pass
        except OSError:
            pass


@pytest.fixture
def redfish_bmc(tmp_path_factory):
    """Factory ``redfish_bmc(systems=1, password=None, raid_controller=False, bios_versions=None, models=None,
    bmc_versions=None, nic_versions=None, nic_serials=None)``: a started
    Redfish BMC (``redfish.RedfishBMC``: sushy-tools' emulator with fake systems, on a free loopback port, behind HTTP
    basic authentication with ``password``, a random one by default; with ``raid_controller``, a storage controller
    without volumes in each system; with ``bios_versions``, ``models`` and ``bmc_versions``, one a system, the BIOS
    version, model and BMC version each reports, which a SimpleUpdate changes (``redfish.FirmwareImages``); with
    ``nic_versions`` and ``nic_serials``, each system's network adapters, their versions and serial numbers).
    ``bmc.driver_info(index)`` enrolls system ``index`` with the ``redfish`` hardware type. Every emulator is stopped
    by its PID after the test."""
    try:
        # Imported here: without sushy-tools (and its bcrypt) only the Redfish tests fail.
        from redfish import RedfishBMC  # pylint: disable=import-outside-toplevel
    except ImportError:
        pytest.fail('sushy-tools is not installed in the test virtualenv: pip install -r requirements-test.txt',
                    pytrace=False)
    bmcs = []

    def start(systems=1, password=None, raid_controller=False, bios_versions=None, models=None, bmc_versions=None,
              nic_versions=None, nic_serials=None):
        bmc = RedfishBMC(tmp_path_factory.mktemp('redfish-bmc'), systems, password, raid_controller, bios_versions,
                         models, bmc_versions, nic_versions, nic_serials)
        bmcs.append(bmc)
        return bmc.start()

    yield start

    for bmc in bmcs:
        bmc.stop()


@pytest.fixture(scope='session')
def raw(ironic):
    """The shared Ironic's API, read and written directly (nodes.RawIronic)."""
    from nodes import RawIronic
    return RawIronic(ironic)


@pytest.fixture
def new_name(ironic):
    """Factory of unique node names for nodes a module creates; those nodes are deleted after the test (put in
    maintenance first when Ironic refuses)."""
    names = []

    def make():
        names.append('node-%s' % uuid.uuid4().hex[:10])
        return names[-1]

    yield make

    for name in names:
        if ironic.api('DELETE', '/nodes/%s' % name, expect=None) is not None:
            ironic.api('PUT', '/nodes/%s/maintenance' % name, {'reason': 'test cleanup'}, expect=None)
            ironic.api('DELETE', '/nodes/%s' % name, expect=None)

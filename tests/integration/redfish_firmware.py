# -*- coding: utf-8 -*-
"""sushy-tools' emulator whose fake systems have a model and firmware that a SimpleUpdate really changes: run as
``python redfish_firmware.py --config FILE`` (redfish.RedfishBMC does, given ``bios_versions``, ``models``,
``bmc_versions`` or ``nic_versions``, and ``nic_serials``).

What sushy-tools 2.2.0 lacks, and what this adds as a driver and views of the emulator (its own code is run as
installed: its entry point, with this driver in the place of its fake one and these views in the place of four of
its own, and views of its own for network adapters and tasks):

- its fake system driver has no firmware versions (``get_versions`` is not implemented), so a system's
  ``BiosVersion`` is null. This driver keeps each system's versions (``firmware_versions`` of its entry in
  ``SUSHY_EMULATOR_FAKE_SYSTEMS``: ``{"BiosVersion": "1.2.0", "BmcVersion": "2.8"}``) and its ``model`` in the
  emulator's state, as the rest of the system is;
- a system's ``Model`` is null: the system and its manager (the BMC) report the system's ``model`` where it has one
  (else the emulator's own). Ironic records a ``bmc`` firmware component with its manager's model, which is where the
  collection reads a node's model;
- a manager's ``FirmwareVersion`` is the constant 1.00: it reports the system's ``BmcVersion`` when it has one;
- ``UpdateService.SimpleUpdate`` answers HTTP 500 for a system, 400 for a manager, fetches no image and makes up the
  next BIOS version. Here it fetches the image from its URL (``ImageURI``), which names what it holds as JSON:
  ``{"component": "bios" | "bmc" | "nic:<adapter Id>", "version": "1.3"}``, or ``{"fail": "why"}`` for an image
  made to fail. The component of a system target (or of the only system, without targets: Ironic gives a target
  only when the BMC has several systems, and then always the system, whatever the component) then reports that
  version; a manager target is the BMC of its system. The answer is a task (``TaskService/Tasks/fw-N``) that is
  ``Completed`` and ``OK``, the new version applied when the task is first read (Ironic reads a BMC's version when
  it submits the update and again after it, to see it change), or an ``Exception`` with the reason (an image made to
  fail, or one that could not be fetched) as its message, which Ironic reports as the step's error;
- no network adapter is emulated (a chassis has no ``NetworkAdapters``): a system given adapters (keys
  ``nic:<adapter Id>`` of its ``firmware_versions``, e.g. ``{"nic:NIC.Slot.1": "22.31"}``, and a ``chassis`` of its
  own in ``SUSHY_EMULATOR_CHASSIS``, as redfish.RedfishBMC's ``nic_versions`` writes them) links to that chassis,
  whose ``NetworkAdapters`` list one adapter a key, each with one controller whose ``FirmwarePackageVersion`` is the
  key's version: where Ironic reads them (system, its first chassis, its adapters, their controllers). An adapter
  without a ``SerialNumber`` is named after its ``Id`` by Ironic: ``nic:NIC.Slot.1``. One given a serial number
  (``nic_serials`` of its system's entry, ``{adapter Id: serial}``) reports it as its ``SerialNumber``, and Ironic
  names its component ``nic:<serial>``, a name that differs from node to node of one model. An image
  ``{"component": "nic:NIC.Slot.1", "version": "22.40"}`` updates the adapter of that Id in the target system,
  whatever its serial number (as a vendor's image names the slot it is for, not one card: one image serves that slot
  on every system; one the system lacks fails its task, with the reason); Ironic reboots the node after a NIC update
  whose task it first sees done;
- a power change takes effect ``POWER_DELAY`` seconds after it is asked (1 to 11 s in the fake driver), so that a
  reboot of a firmware update fits in the short power timeout of the test Ironic.

A BMC that takes its time: while the file named by ``SUSHY_EMULATOR_FIRMWARE_HOLD_FILE`` exists
(redfish.RedfishBMC's ``hold_firmware_tasks``), every task is ``Running``, its monitor answers HTTP 202 (what sushy
calls processing) and no update is applied; once it is gone, the next read of a task applies its update, as above.
Ironic keeps polling a ``Running`` BMC task, the node in ``service wait``.

Not emulated: a task that stays ``Starting`` (Ironic's wait for a NIC task that needs a reboot to start,
``firmware_update_nic_starting_wait``, and its BIOS reboot at a task's start are never exercised: hold only a BMC
update), a BMC that stops answering while it flashes itself, an update applied only at
the next reboot, an adapter with several controllers, and the other Redfish resources of an adapter (ports, device
functions).
"""

from __future__ import annotations

import copy
import itertools
import json
import os
import sys
import threading
import time
import urllib.error
import urllib.request

import flask

from sushy_tools import error
from sushy_tools.emulator import main as emulator
from sushy_tools.emulator.resources.systems import fakedriver

# Seconds a power change takes to happen.
POWER_DELAY = 1
# What each component's version is called in a system's firmware_versions (a network adapter's: its component name,
# ``nic:<adapter Id>``).
VERSION_KEYS = {'bios': 'BiosVersion', 'bmc': 'BmcVersion'}
NIC_PREFIX = 'nic:'
IMAGE_TIMEOUT = 10

_tasks = {}
_pending = {}
_task_numbers = itertools.count(1)
_tasks_lock = threading.Lock()


class FirmwareFakeDriver(fakedriver.FakeDriver):
    """The fake system driver with each system's model and firmware versions, and quick power changes."""

    def get_versions(self, identity):
        return copy.deepcopy(self._get(identity).get('firmware_versions') or {})

    def set_versions(self, identity, firmware_versions):
        system = self._get(identity)
        versions = dict(system.get('firmware_versions') or {}, **firmware_versions)
        self._update(system, firmware_versions=versions)

    def get_model(self, identity):
        return self._get(identity).get('model')

    def get_chassis(self, identity):
        """The UUID of the system's own chassis (one of SUSHY_EMULATOR_CHASSIS), or None: the emulator's first."""
        return self._get(identity).get('chassis')

    def get_network_adapters(self, identity):
        """{adapter Id: firmware version} of the system's network adapters."""
        return dict((key[len(NIC_PREFIX):], version) for key, version in self.get_versions(identity).items()
                    if key.startswith(NIC_PREFIX))

    def get_nic_serials(self, identity):
        """{adapter Id: SerialNumber} of the system's adapters that have one."""
        return dict(self._get(identity).get('nic_serials') or {})

    def set_power_state(self, identity, state):
        super().set_power_state(identity, state)
        system = self._get(identity)
        if system.get('pending_power'):
            self._update(system, pending_power=dict(system['pending_power'], apply_time=time.time() + POWER_DELAY))


def _json_view(endpoint, change):
    """Replaces the emulator's view ``endpoint`` by one that answers what it answers, its JSON document changed by
    ``change(document, **view_args)`` on a successful GET."""
    original = emulator.app.view_functions[endpoint]

    def view(**kwargs):
        response = original(**kwargs)
        if flask.request.method == 'GET' and response.status_code == 200:
            document = json.loads(response.get_data())
            change(document, **kwargs)
            response.set_data(json.dumps(document))
        return response

    emulator.app.view_functions[endpoint] = view


def _system_model(document, identity):
    system = emulator.app.systems.uuid(identity)
    model = emulator.app.systems.get_model(system)
    if model:  # else the emulator's own
        document['Model'] = model
    systems = emulator.app.systems
    chassis = systems.get_chassis(system)
    if not chassis:  # the first chassis that is no system's own, which the others share (the emulator gives its first)
        owned = set(systems.get_chassis(other) for other in systems.systems)
        chassis = next((shared for shared in emulator.app.chassis.chassis if shared not in owned), None)
    if chassis:
        document.setdefault('Links', {})['Chassis'] = [{'@odata.id': '/redfish/v1/Chassis/%s' % chassis}]


def _system_of_chassis(identity):
    """The UUID of the system whose own chassis this is, or None."""
    try:
        chassis = emulator.app.chassis.uuid(identity)
    except error.FishyError:  # no such chassis
        return None
    systems = emulator.app.systems
    return next((system for system in systems.systems if systems.get_chassis(system) == chassis), None)


def _chassis_adapters(document, identity):
    if _system_of_chassis(identity):
        document['NetworkAdapters'] = {'@odata.id': '/redfish/v1/Chassis/%s/NetworkAdapters' % identity}


def _not_found(what):
    return flask.Response(json.dumps({'error': {'message': 'No %s' % what}}), status=404,
                          content_type='application/json')


def _network_adapters(identity):
    system = _system_of_chassis(identity)
    if system is None:
        return _not_found('network adapters in chassis %s' % identity)
    path = '/redfish/v1/Chassis/%s/NetworkAdapters' % identity
    members = [{'@odata.id': '%s/%s' % (path, adapter)}
               for adapter in sorted(emulator.app.systems.get_network_adapters(system))]
    document = {'@odata.type': '#NetworkAdapterCollection.NetworkAdapterCollection', 'Name': 'Network adapters',
                'Members@odata.count': len(members), 'Members': members, '@odata.id': path}
    return flask.Response(json.dumps(document), status=200, content_type='application/json')


def _network_adapter(identity, adapter):
    """A network adapter with one controller, whose FirmwarePackageVersion is what Ironic records as the adapter's
    version, and its SerialNumber where it has one (Ironic names the component nic:<SerialNumber>, else nic:<Id>)."""
    system = _system_of_chassis(identity)
    adapters = emulator.app.systems.get_network_adapters(system) if system else {}
    if adapter not in adapters:
        return _not_found('network adapter %s in chassis %s' % (adapter, identity))
    document = {'@odata.type': '#NetworkAdapter.v1_5_0.NetworkAdapter', 'Id': adapter, 'Name': adapter,
                'Manufacturer': 'Emulated NICs', 'Model': 'EN-25G',
                'Controllers': [{'FirmwarePackageVersion': adapters[adapter]}],
                'Status': {'State': 'Enabled', 'Health': 'OK'},
                '@odata.id': '/redfish/v1/Chassis/%s/NetworkAdapters/%s' % (identity, adapter)}
    serial = emulator.app.systems.get_nic_serials(system).get(adapter)
    if serial:
        document['SerialNumber'] = serial
    return flask.Response(json.dumps(document), status=200, content_type='application/json')


def _manager_firmware(document, identity):
    system = emulator.app.systems.uuid(identity)
    model = emulator.app.systems.get_model(system)
    if model:  # else the emulator's own (a manager's: Joo Janta 200)
        document['Model'] = model
    version = emulator.app.systems.get_versions(system).get('BmcVersion')
    if version:
        document['FirmwareVersion'] = version


def _fetch_image(url):
    """(component, version, None) named by the image at url, or (None, None, why it cannot be applied)."""
    try:
        with urllib.request.urlopen(url, timeout=IMAGE_TIMEOUT) as answer:
            image = json.loads(answer.read())
    except (urllib.error.URLError, OSError, ValueError) as exc:
        return None, None, 'The image %s could not be fetched: %s' % (url, exc)
    if not isinstance(image, dict):
        return None, None, 'The image %s is not a firmware image of this emulator' % url
    if image.get('fail'):
        return None, None, 'The image %s was refused: %s' % (url, image['fail'])
    component = image.get('component')
    if not (component in VERSION_KEYS or str(component).startswith(NIC_PREFIX)) or not image.get('version'):
        return None, None, 'The image %s names no component (bios, bmc or nic:<adapter>) and version' % url
    return component, str(image['version']), None


def _new_task(error_text=None, update=None):
    with _tasks_lock:
        number = 'fw-%d' % next(_task_numbers)
        _tasks[number] = error_text
        _pending[number] = update
    return number


def _apply(task):
    """The task's update applied, once: when its task is first read, as a BMC applies an image after it accepted it
    (Ironic reads a BMC's version before and after, and sees it change)."""
    with _tasks_lock:
        update = _pending.pop(task, None)
    if update:
        system, key, version = update
        emulator.app.systems.set_versions(system, {key: version})
        emulator.app.logger.info('Firmware update of system %s applied: %s %s', system, key, version)


def _simple_update():
    request = flask.request.get_json(force=True, silent=True) or {}
    image_uri = request.get('ImageURI')
    systems = emulator.app.systems
    targets = request.get('Targets') or ['/redfish/v1/Systems/%s' % identity for identity in systems.systems]
    if not image_uri or len(targets) != 1:
        return flask.Response(json.dumps({'error': {'message': 'Give ImageURI and one target (or one system).'}}),
                              status=400, content_type='application/json')
    target = targets[0].rstrip('/')
    component, version, problem = _fetch_image(image_uri)
    update = None
    if problem is None:
        system = systems.uuid(target.rsplit('/', 1)[-1])
        key = VERSION_KEYS.get(component, component)
        if key.startswith(NIC_PREFIX) and key not in systems.get_versions(system):
            problem = 'The image %s is for network adapter %s, which system %s does not have' % (
                image_uri, key[len(NIC_PREFIX):], system)
        else:
            update = (system, key, version)
    if problem is not None:
        emulator.app.logger.info('Firmware update of %s failed: %s', target, problem)
    task = _new_task(problem, update)
    location = '/redfish/v1/TaskService/Tasks/%s' % task
    return flask.Response(json.dumps(_task_document(task)), status=202, content_type='application/json',
                          headers={'Location': location})


def _task_document(task):
    problem = _tasks[task]
    document = {'@odata.type': '#Task.v1_4_3.Task', 'Id': task, 'Name': 'Firmware update %s' % task,
                'TaskState': 'Exception' if problem else 'Completed', 'TaskStatus': 'Critical' if problem else 'OK',
                'PercentComplete': 100, '@odata.id': '/redfish/v1/TaskService/Tasks/%s' % task, 'Messages': []}
    if problem:
        document['Messages'] = [{'MessageId': 'Update.1.0.ApplyFailed', 'Message': problem, 'Severity': 'Critical'}]
    return document


def _held():
    """Whether the BMC holds every task Running (its hold file exists)."""
    hold_file = emulator.app.config.get('SUSHY_EMULATOR_FIRMWARE_HOLD_FILE')
    return bool(hold_file) and os.path.exists(hold_file)


def _task(task):
    if task not in _tasks:
        return flask.Response(json.dumps({'error': {'message': 'No task %s' % task}}), status=404,
                              content_type='application/json')
    if _held():
        document = dict(_task_document(task), TaskState='Running', TaskStatus='OK', PercentComplete=50, Messages=[])
        return flask.Response(json.dumps(document), status=202, content_type='application/json')
    _apply(task)
    return flask.Response(json.dumps(_task_document(task)), status=200, content_type='application/json')


def install():
    """This driver and these views in the emulator's place (before it serves anything)."""
    # The emulator makes its systems driver from the module's FakeDriver when it first serves a system.
    fakedriver.FakeDriver = FirmwareFakeDriver
    _json_view('system_resource', _system_model)
    _json_view('manager_resource', _manager_firmware)
    _json_view('chassis_resource', _chassis_adapters)
    emulator.app.add_url_rule('/redfish/v1/Chassis/<identity>/NetworkAdapters', 'network_adapters',
                              _network_adapters, methods=['GET'])
    emulator.app.add_url_rule('/redfish/v1/Chassis/<identity>/NetworkAdapters/<adapter>', 'network_adapter',
                              _network_adapter, methods=['GET'])
    emulator.app.view_functions['UpdateService.update_service_simple_update'] = _simple_update
    emulator.app.add_url_rule('/redfish/v1/TaskService/Tasks/<task>', 'firmware_task', _task, methods=['GET'])


if __name__ == '__main__':
    install()
    sys.exit(emulator.main())

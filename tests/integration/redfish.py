# -*- coding: utf-8 -*-
"""A Redfish BMC for the tests: sushy-tools' emulator with its fake system driver (no libvirt), on loopback,
behind HTTP basic authentication, so that a wrong password is refused the way a real BMC refuses it.

The emulator runs from the test virtualenv (sushy-tools is in requirements-test.txt); Ironic reaches it with the
``redfish`` hardware type, whose sushy library is a dependency of Ironic itself.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
import uuid
from http.server import ThreadingHTTPServer

import bcrypt

from loopback_http import LoopbackHandler

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYTHON = os.path.join(ROOT, '.work', 'venv', 'bin', 'python')
BMC_USERNAME = 'admin'


class RedfishBMC:
    """One sushy-tools emulator serving ``systems`` fake systems on a free port of 127.0.0.1, only to ``BMC_USERNAME``
    with ``password`` (a bcrypt htpasswd entry: the only digest sushy-tools accepts; ``set_password`` changes it).
    With ``raid_controller``, each system has a storage controller (``Storage/RAID``) holding no volume: what
    Ironic's ``redfish`` RAID interface reads (the fake system driver emulates no BIOS, firmware or volumes). With
    ``bios_versions`` (one a system), each system reports that ``BiosVersion`` (the emulator runs with the driver of
    redfish_firmware.py), which Ironic's ``redfish`` firmware interface records as the ``bios`` component. With
    ``models`` and ``bmc_versions`` (one a system) too, each system and its BMC report that ``Model`` and the BMC that
    ``FirmwareVersion`` (Ironic's ``bmc`` component); a SimpleUpdate then fetches its image (FirmwareImages serves
    them) and the component reports the version the image names. With ``nic_versions`` (one a system: None, or
    ``{adapter Id: version}``), a system with adapters has a chassis of its own whose NetworkAdapters report those
    versions (Ironic's ``nic:<adapter Id>`` components); with ``nic_serials`` too (one a system: None, or
    ``{adapter Id: serial number}``), those adapters report that ``SerialNumber``, and Ironic names their components
    ``nic:<serial number>`` (an image for ``nic:<adapter Id>`` still updates the adapter of that Id).

    ``driver_info(index, password=None)`` is what Ironic needs to drive system ``index``; ``hold_firmware_tasks()``
    keeps every firmware update task Running until ``release_firmware_tasks()``; ``stop()`` ends the emulator by its
    PID (a killed emulator is a BMC that stopped answering).
    """

    def __init__(self, base_dir, systems=1, password=None, raid_controller=False, bios_versions=None, models=None,
                 bmc_versions=None, nic_versions=None, nic_serials=None):
        self.base_dir = str(base_dir)
        self.raid_controller = raid_controller
        self.bios_versions = list(bios_versions) if bios_versions else None
        self.models = list(models) if models else None
        self.bmc_versions = list(bmc_versions) if bmc_versions else None
        self.nic_versions = list(nic_versions) if nic_versions else None
        self.nic_serials = list(nic_serials) if nic_serials else None
        if self.nic_serials and not self.nic_versions:
            raise ValueError('nic_serials gives serial numbers to the adapters of nic_versions: give both')
        for what, values in (('bios_versions', self.bios_versions), ('models', self.models),
                             ('bmc_versions', self.bmc_versions), ('nic_versions', self.nic_versions),
                             ('nic_serials', self.nic_serials)):
            if values and len(values) != systems:
                raise ValueError('%s gives one value a system: %d for %d systems' % (what, len(values), systems))
        self.port = _free_loopback_port()
        self.password = password or 'bmc-%s' % uuid.uuid4().hex
        self.address = 'http://127.0.0.1:%d' % self.port
        self.system_ids = [str(uuid.uuid4()) for _index in range(systems)]
        self.log_path = os.path.join(self.base_dir, 'sushy-emulator.log')
        self.process = None

    def driver_info(self, index=0, password=None):
        return {'redfish_address': self.address, 'redfish_system_id': '/redfish/v1/Systems/%s' % self.system_ids[index],
                'redfish_username': BMC_USERNAME, 'redfish_password': self.password if password is None else password}

    @property
    def auth_file(self):
        return os.path.join(self.base_dir, 'htpasswd')

    @property
    def hold_file(self):
        return os.path.join(self.base_dir, 'firmware-tasks-held')

    def hold_firmware_tasks(self):
        """From now on every firmware update task of the BMC stays Running, its update not applied, until
        release_firmware_tasks (redfish_firmware.py): a BMC that takes its time to flash itself."""
        with open(self.hold_file, 'w', encoding='utf-8') as stream:
            stream.write('held\n')

    def release_firmware_tasks(self):
        """The held tasks end at their next read, their updates applied (idempotent)."""
        if os.path.exists(self.hold_file):
            os.remove(self.hold_file)

    def set_password(self, password):
        """Change the BMC's password, as an operator does on the BMC itself: the emulator reads its htpasswd file on
        every request, so the old password is refused from now on."""
        self.password = password
        os.makedirs(self.base_dir, exist_ok=True)
        # The cheapest cost bcrypt allows: the emulator checks it on every request.
        digest = bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds=4)).decode()
        with open(self.auth_file + '.new', 'w', encoding='utf-8') as stream:
            stream.write('%s:%s\n' % (BMC_USERNAME, digest))
        os.replace(self.auth_file + '.new', self.auth_file)

    def _write_config(self):
        self.set_password(self.password)
        systems = [{'uuid': system_id, 'name': 'system-%d' % index, 'power_state': 'Off', 'external_notifier': False,
                    'nics': [{'mac': '52:54:00:aa:%02x:%02x' % (self.port % 256, index), 'ip': '127.0.0.1'}]}
                   for index, system_id in enumerate(self.system_ids)]
        # The emulator's own chassis (its default), which the systems without a chassis of their own share.
        chassis = [{'Id': 'SheetMetalChassis', 'Name': 'Chassis', 'UUID': '15693887-7984-9484-3272-842188918912'}]
        for index, system in enumerate(systems):
            versions = {}
            if self.bios_versions:
                versions['BiosVersion'] = self.bios_versions[index]
            if self.bmc_versions:
                versions['BmcVersion'] = self.bmc_versions[index]
            adapters = (self.nic_versions or [None] * len(systems))[index]
            if adapters:
                versions.update(('nic:%s' % adapter, version) for adapter, version in adapters.items())
                system['chassis'] = str(uuid.uuid4())
                chassis.append({'Id': system['chassis'], 'Name': 'Chassis of system-%d' % index,
                                'UUID': system['chassis']})
            if versions:
                system['firmware_versions'] = versions
            serials = (self.nic_serials or [None] * len(systems))[index]
            if serials:
                unknown = sorted(set(serials) - set(adapters or {}))
                if unknown:
                    raise ValueError('nic_serials of system %d names adapters it lacks: %s' % (index, unknown))
                system['nic_serials'] = dict(serials)
            if self.models:
                system['model'] = self.models[index]
        config = os.path.join(self.base_dir, 'emulator.conf')
        settings = {
            'SUSHY_EMULATOR_LISTEN_IP': '127.0.0.1',
            'SUSHY_EMULATOR_LISTEN_PORT': self.port,
            'SUSHY_EMULATOR_FAKE_DRIVER': True,
            'SUSHY_EMULATOR_FAKE_SYSTEMS': systems,
            'SUSHY_EMULATOR_AUTH_FILE': self.auth_file,
            # Its own state directory: the default is shared by every emulator of the machine (/tmp/sushy-emulator).
            'SUSHY_EMULATOR_STATE_DIR': os.path.join(self.base_dir, 'state'),
            # While this file exists, the firmware emulator's update tasks stay Running (hold_firmware_tasks).
            'SUSHY_EMULATOR_FIRMWARE_HOLD_FILE': self.hold_file,
        }
        if len(chassis) > 1:
            settings['SUSHY_EMULATOR_CHASSIS'] = chassis
        if self.raid_controller:
            settings['SUSHY_EMULATOR_STORAGE'] = dict(
                (system_id, [{'Id': 'RAID', 'Name': 'RAID controller', 'Drives': [],
                              'StorageControllers': [{'MemberId': '0', 'Name': 'RAID controller', 'SpeedGbps': 12}]}])
                for system_id in self.system_ids)
            # Keyed by (system, storage): the emulator answers 500 for a storage without its volume collection.
            settings['SUSHY_EMULATOR_VOLUMES'] = dict(((system_id, 'RAID'), []) for system_id in self.system_ids)
        with open(config, 'w', encoding='utf-8') as stream:
            for key, value in settings.items():
                # The configuration is Python (Flask's from_pyfile): repr writes its literals, tuple keys included.
                stream.write('%s = %r\n' % (key, value))
        return config

    def start(self, timeout=60):
        config = self._write_config()
        here = os.path.dirname(os.path.abspath(__file__))
        firmware = self.bios_versions or self.models or self.bmc_versions or self.nic_versions
        entry = ([os.path.join(here, 'redfish_firmware.py')] if firmware
                 else ['-m', 'sushy_tools.emulator.main'])
        with open(self.log_path, 'ab') as log:
            self.process = subprocess.Popen(  # pylint: disable=consider-using-with
                [PYTHON] + entry + ['--config', config],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd=self.base_dir)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError('sushy-emulator exited with %s:\n%s' % (self.process.returncode, self.log()[-4000:]))
            if self.answers():
                return self
            time.sleep(0.1)
        self.stop()
        raise RuntimeError('sushy-emulator did not answer on %s within %d s:\n%s'
                           % (self.address, timeout, self.log()[-4000:]))

    def answers(self):
        """Whether the emulator answers its service root (which it serves without authentication)."""
        try:
            with urllib.request.urlopen(self.address + '/redfish/v1/', timeout=2) as response:
                return response.status == 200
        except (urllib.error.URLError, OSError):
            return False

    def power_state(self, index=0, password=None):
        """The power state system ``index`` reports ('On' or 'Off'), asked with the given password (the BMC's own by
        default); raises urllib.error.HTTPError 401 with a wrong one."""
        return self.resource('/redfish/v1/Systems/%s' % self.system_ids[index], password)['PowerState']

    def resource(self, path, password=None):
        """The Redfish resource at ``path`` (``/redfish/v1/...``) as the emulator answers it, asked with the given
        password (the BMC's own by default)."""
        request = urllib.request.Request(self.address + path)
        request.add_unredirected_header('Authorization', 'Basic ' + _basic(BMC_USERNAME, password or self.password))
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    def firmware(self, index=0):
        """{'bios': BiosVersion, 'bmc': FirmwareVersion} as system ``index`` and its manager (the BMC) report them."""
        system = self.resource('/redfish/v1/Systems/%s' % self.system_ids[index])
        manager = self.resource(system['Links']['ManagedBy'][0]['@odata.id'])
        return {'bios': system['BiosVersion'], 'bmc': manager['FirmwareVersion']}

    def network_adapters(self, index=0):
        """{adapter Id: (SerialNumber or None, FirmwarePackageVersion)} as the adapters of system ``index`` report
        them (where Ironic reads them: the system's chassis, its NetworkAdapters)."""
        system = self.resource('/redfish/v1/Systems/%s' % self.system_ids[index])
        chassis = self.resource(system['Links']['Chassis'][0]['@odata.id'])
        adapters = self.resource(chassis['NetworkAdapters']['@odata.id'])['Members']
        found = {}
        for member in adapters:
            adapter = self.resource(member['@odata.id'])
            found[adapter['Id']] = (adapter.get('SerialNumber'), adapter['Controllers'][0]['FirmwarePackageVersion'])
        return found

    def stop(self):
        """Kill the emulator by its PID and reap it (idempotent)."""
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)

    def log(self):
        try:
            with open(self.log_path, encoding='utf-8', errors='replace') as stream:
                return stream.read()
        except OSError:
            return ''


class FirmwareImages:
    """A loopback HTTP server of the firmware images the emulator of redfish_firmware.py applies:
    ``url(component, version)`` is an image that brings ``component`` (bios, bmc or nic:<adapter Id>) to ``version``,
    ``url(component, version, fail='why')`` one the BMC refuses with that reason. ``fetched`` lists the paths asked,
    in order; ``stop()`` closes the server."""

    def __init__(self):
        images = self

        class Handler(LoopbackHandler):
            def answer(self):
                images.fetched.append(self.path)
                payload = images.images.get(self.path)
                if payload is None:
                    self.send_answer(404, (), b'no such image')
                else:
                    self.send_answer(200, [('Content-Type', 'application/octet-stream')], payload)

        self.images = {}
        self.fetched = []
        self.server = ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        self.address = 'http://127.0.0.1:%d' % self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, component, version, fail=None, path=None):
        """The URL of an image of ``component`` at ``version`` (one that fails with ``fail``), at ``path`` (by default
        one made of the component and version)."""
        path = path or '/%s-%s%s.bin' % (component.replace(':', '-'), version, '-failing' if fail else '')
        image = {'fail': fail} if fail else {'component': component, 'version': version}
        self.images[path] = json.dumps(image).encode()
        return self.address + path

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)


def _basic(username, password):
    return base64.b64encode(('%s:%s' % (username, password)).encode()).decode()


def _free_loopback_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]

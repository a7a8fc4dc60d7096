# -*- coding: utf-8 -*-
"""An IPMI BMC for the tests: pyghmi's BMC server (``pyghmi.ipmi.bmc.Bmc``, IPMI 2.0 over LAN, what ``ipmitool -I
lanplus`` speaks) with one emulated system that keeps its power state and boot device, bound to 127.0.0.1 only.

pyghmi's own ``fakebmc`` script binds ``::`` with IPV6_V6ONLY off (every address, IPv4 and IPv6); ``Bmc`` takes the
address to bind, and an IPv4 one makes pyghmi open an AF_INET socket bound to that address alone: port 0 lets the
kernel pick a free port, which the emulator writes to its state file once it listens (no race for a port guessed
free). It runs as a subprocess (``python ipmi_bmc.py STATE_FILE [PORT]``), started and stopped by its PID; the user
name, the password and the BMC key (Kg, in hex; none by default) are in its environment (``IPMI_BMC_USERNAME``,
``IPMI_BMC_PASSWORD``, ``IPMI_BMC_KG_HEX``), never on its command line (which ``ps`` shows) and never in its log.

What it answers (IPMI netfn/command): Get Device ID, Get System GUID, Get Chassis Status, Chassis Control (power
off, on, cycle, reset, soft off; diagnostic interrupt is refused), Get and Set System Boot Options (boot flags:
the device; persistence is acknowledged, not kept), Get Channel Authentication Capabilities and the RMCP+ session
set-up (cipher suite 3 only). Anything else is answered "invalid command" (0xC1): no SOL console, no SEL, no
sensors, no FRU, no user or password commands (a password change happens by restarting it with the new one).

The state file (JSON: ``port``, ``pid``, ``power`` ``on``/``off``, ``boot_device`` as pyghmi names it (``network``
for PXE, ``hd`` for disk, ``default`` for no override), and the counts ``power_changes``, ``power_reads`` and
``boot_device_reads``) is rewritten on every change and read, and read back on start, so a restarted BMC (new
password) keeps its system's state; the tests read the system's state from it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

from pyghmi.ipmi import bmc as pyghmi_bmc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYTHON = os.path.join(ROOT, '.work', 'venv', 'bin', 'python')
IPMITOOL = '/usr/bin/ipmitool'
BMC_USERNAME = 'admin'
# IPMI 2.0 passwords have at most 20 bytes (ipmitool -P refuses a longer one; -f, as Ironic runs it, cuts it).
PASSWORD_BYTES = 20
INITIAL_STATE = {'power': 'off', 'boot_device': 'default', 'power_changes': 0, 'power_reads': 0, 'boot_device_reads': 0}


def _write_state(path, state):
    with open(path + '.new', 'w', encoding='utf-8') as stream:
        json.dump(state, stream)
    os.replace(path + '.new', path)


def _read_state(path):
    try:
        with open(path, encoding='utf-8') as stream:
            return json.load(stream)
    except (OSError, ValueError):
        return None


class EmulatedBMC(pyghmi_bmc.Bmc):
    """One system's power state and boot device, kept in the state file."""

    def __init__(self, users, state_file, port, kg=None):
        super().__init__(users, port=port, address='127.0.0.1')
        # pyghmi files the sessions of a BMC under self.port and finds them under the port its socket received on:
        # with port 0 (the kernel's pick) they must be the port bound.
        self.port = self.serversocket.getsockname()[1]
        self.kg = kg  # the BMC key (Kg) of the RMCP+ session keys; None: the user's password, as IPMI 2.0 says
        self.state_file = state_file
        self.state = dict(INITIAL_STATE, **(_read_state(state_file) or {}))
        self.state.update(port=self.port, pid=os.getpid())
        self.save()

    def save(self):
        _write_state(self.state_file, self.state)

    def _power(self, state):
        self.state['power'] = state
        self.state['power_changes'] += 1
        self.save()
        print('power %s' % state, flush=True)

    def get_power_state(self):
        self.state['power_reads'] += 1
        self.save()
        return self.state['power']

    def power_on(self):
        self._power('on')

    def power_off(self):
        self._power('off')

    def power_shutdown(self):
        self._power('off')

    def power_cycle(self):
        # A cycle of a system that is off leaves it off (IPMI 2.0, Chassis Control: no effect when off).
        if self.state['power'] == 'on':
            self._power('on')

    def power_reset(self):
        if self.state['power'] == 'on':
            self._power('on')

    def get_boot_device(self):
        self.state['boot_device_reads'] += 1
        self.save()
        return self.state['boot_device']

    def set_boot_device(self, bootdevice):
        self.state['boot_device'] = bootdevice
        self.save()
        print('boot device %s' % bootdevice, flush=True)

    def cold_reset(self):
        return 0xc1  # not emulated: a BMC reset would end the emulator

    def is_active(self):
        return self.state['power'] == 'on'

    def get_system_guid(self):
        return self.uuid


def main(argv):
    """``ipmi_bmc.py STATE_FILE [PORT]``: serve until killed."""
    state_file = argv[1]
    port = int(argv[2]) if len(argv) > 2 else 0
    users = {os.environ['IPMI_BMC_USERNAME']: os.environ['IPMI_BMC_PASSWORD']}
    kg = bytes.fromhex(os.environ['IPMI_BMC_KG_HEX']) if os.environ.get('IPMI_BMC_KG_HEX') else None
    EmulatedBMC(users, state_file, port, kg).listen()


class IpmiBMC:
    """The emulator as a subprocess, for the tests: ``start()``, ``stop()`` (by its PID), ``restart(password)`` on the
    same port with a new password, ``state()`` (the system's power and boot device and the counts of reads, from the
    state file), ``driver_info(password=None)`` (what Ironic's ipmi hardware type needs), ``ipmitool(*args,
    password=None)``. ``kg_hex``: a BMC key (Kg, in hex) the sessions need besides the password (None: none)."""

    def __init__(self, base_dir, password, kg_hex=None):
        if len(password.encode()) > PASSWORD_BYTES:
            raise ValueError('an IPMI 2.0 password has at most %d bytes: ipmitool -f cuts a longer one, and the BMC '
                             'refuses it' % PASSWORD_BYTES)
        self.base_dir = str(base_dir)
        self.password = password
        self.kg_hex = kg_hex
        self.port = 0
        self.state_file = os.path.join(self.base_dir, 'bmc-state.json')
        self.log_path = os.path.join(self.base_dir, 'ipmi-bmc.log')
        self.process = None

    def driver_info(self, password=None):
        info = {'ipmi_address': '127.0.0.1', 'ipmi_port': self.port, 'ipmi_username': BMC_USERNAME,
                'ipmi_password': self.password if password is None else password}
        if self.kg_hex:
            info['ipmi_hex_kg_key'] = self.kg_hex
        return info

    def start(self, timeout=30):
        if os.path.exists(self.state_file):  # a restart: the port is read from the new process's state
            state = _read_state(self.state_file)
            state.pop('pid', None)
            _write_state(self.state_file, state)
        env = dict(os.environ, IPMI_BMC_USERNAME=BMC_USERNAME, IPMI_BMC_PASSWORD=self.password,
                   IPMI_BMC_KG_HEX=self.kg_hex or '')
        with open(self.log_path, 'ab') as log:
            self.process = subprocess.Popen(  # pylint: disable=consider-using-with
                [PYTHON, os.path.abspath(__file__), self.state_file, str(self.port)], env=env,
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd=self.base_dir)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError('the IPMI BMC emulator exited with %s:\n%s'
                                   % (self.process.returncode, self.log()[-4000:]))
            state = _read_state(self.state_file) or {}
            if state.get('pid') == self.process.pid:
                self.port = state['port']
                return self
            time.sleep(0.05)
        self.stop()
        raise RuntimeError('the IPMI BMC emulator did not listen within %d s:\n%s' % (timeout, self.log()[-4000:]))

    def restart(self, password):
        """Stop the BMC and start it again on the same port with another password (the emulator takes no password
        change over IPMI); the system keeps its power state and boot device."""
        self.stop()
        self.password = password
        return self.start()

    def stop(self):
        """Kill the emulator by its PID and reap it (idempotent)."""
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)

    def state(self):
        return _read_state(self.state_file)

    def ipmitool(self, *args, password=None):
        """Run ``ipmitool -I lanplus`` against the BMC (the password in the environment, ``-E``): (rc, output)."""
        env = dict(os.environ, IPMI_PASSWORD=self.password if password is None else password)
        kg = ['-y', self.kg_hex] if self.kg_hex else []
        process = subprocess.run(
            [IPMITOOL, '-I', 'lanplus', '-H', '127.0.0.1', '-p', str(self.port), '-U', BMC_USERNAME, '-E',
             '-R', '1', '-N', '1'] + kg + list(args), env=env, stdin=subprocess.DEVNULL, capture_output=True,
            text=True, timeout=60, check=False)
        return process.returncode, process.stdout + process.stderr

    def log(self):
        try:
            with open(self.log_path, encoding='utf-8', errors='replace') as stream:
                return stream.read()
        except OSError:
            return ''


if __name__ == '__main__':
    main(sys.argv)

# -*- coding: utf-8 -*-
"""A test agent that plays booted ironic-python-agent (IPA) ramdisks over Ironic's real agent protocol, on loopback.

``AgentPlayer(ironic)`` is one HTTP server on 127.0.0.1 and one thread per played machine (``agent.play(mac)``, the
MAC of its NIC: a machine may be played before its node is enrolled), all inside the pytest process, stopped by
``agent.stop()``. Each machine's callback URL is the server's URL followed by its MAC's hex digits
(``http://127.0.0.1:PORT/525400000001``): Ironic's agent client appends ``/v1/commands/`` to it.

What it plays of IPA's side of the protocol:

- the ramdisk's life: a node "runs the agent" while Ironic keeps it powered on in a state where a ramdisk runs
  (cleaning, deploying, inspecting, servicing and their wait and hold states; with fast-track also enroll,
  manageable and available). The agent reads the node from Ironic's API every ``interval`` seconds to know it
  (the node whose port has the MAC): what the machine itself would know, whether it is on and what it booted;
  A power action wipes the agent token Ironic holds (conductor/utils.py): the next heartbeat is refused, which the
  agent takes as a reboot: it forgets its commands and looks the node up again, as a freshly booted ramdisk does;
- lookup by MAC (``GET /v1/lookup?addresses=MAC``), which gives the agent token, then a heartbeat every
  ``interval`` seconds (``POST /v1/heartbeat/<uuid>`` with ``callback_url``, ``agent_version`` and ``agent_token``);
- inspection: in ``inspect wait`` it posts an inventory to ``POST /v1/continue_inspection`` once per boot;
- the command API Ironic calls (``POST .../v1/commands/?wait=true|false&agent_token=...`` with ``{"name":
  "<extension>.<command>", "params": {...}}``, and ``GET .../v1/commands/`` to poll): every command's status is
  RUNNING, then SUCCEEDED or FAILED (``command_error`` in IPA's serialized-exception shape); a command sent while
  another runs is refused as busy (HTTP 409), a wrong token with HTTP 401. Commands: ``clean.``, ``deploy.`` and
  ``service.`` ``get_*_steps`` / ``execute_*_step``; the deploy step ``write_image`` downloads the image from the
  first of ``image_info['urls']`` and checks it against ``os_hash_algo``/``os_hash_value`` or ``checksum`` (its
  algorithm told by its length, as IPA does): a mismatch FAILS the step; ``standby.get_partition_uuids``,
  ``standby.sync``, ``standby.power_off`` and ``image.install_bootloader`` succeed (fake power cannot be switched
  off by the agent: Ironic forces it off after ``[agent]post_deploy_get_power_state_retries``).

What a test switches per node (``PlayedNode`` attributes): ``slow`` ({step name: seconds} a step stays RUNNING, or
until the test removes the name),
``slow_status`` (seconds each answer to ``GET .../v1/commands/`` takes at most, under Ironic's
``[agent]command_timeout``: Ironic polls it on a heartbeat in a wait state holding the node's lock, so the node stays
locked meanwhile; set back to 0, the answer under way goes at once),
``fail`` ({step name: error text} a step FAILS with), ``silent`` (no more heartbeats, lookups or inventory).

Not played: TLS (``agent_verify_ca``), ``log.collect_system_logs`` (run the Ironic with
``[agent]deploy_logs_collect=never``), rescue, RAID, hardware-manager version changes (VERSION_MISMATCH), partition
images and configdrives (nothing is written anywhere: the image is only downloaded and checked), and the real
heartbeat period (IPA's is a fraction of the ``heartbeat_timeout`` lookup returns; here it is ``interval``).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from http.server import ThreadingHTTPServer

from loopback_http import LoopbackHandler

# A current IPA release: Ironic records it in driver_internal_info.agent_version.
AGENT_VERSION = '10.2.0'
HARDWARE_MANAGER_VERSION = {'generic_hardware_manager': '1.2'}

# States in which Ironic keeps a ramdisk running (the node powered on), and those it looks a node up in.
RAMDISK_STATES = frozenset(('cleaning', 'clean wait', 'clean hold', 'deploying', 'wait call-back', 'deploy hold',
                            'inspecting', 'inspect wait', 'servicing', 'service wait', 'service hold'))
FAST_TRACK_STATES = frozenset(('enroll', 'manageable', 'available'))

# The steps the played hardware manager offers (priority 0: run only when asked).
CLEAN_STEPS = [{'interface': 'deploy', 'step': 'erase_devices_metadata', 'priority': 99},
               {'interface': 'deploy', 'step': 'erase_devices', 'priority': 10},
               {'interface': 'deploy', 'step': 'erase_devices_express', 'priority': 0},
               {'interface': 'deploy', 'step': 'burnin_cpu', 'priority': 0}]
DEPLOY_STEPS = [{'interface': 'deploy', 'step': 'write_image', 'priority': 0},
                {'interface': 'deploy', 'step': 'inject_files', 'priority': 0}]
SERVICE_STEPS = [{'interface': 'deploy', 'step': 'burnin_cpu', 'priority': 0}]
STEPS = {'clean': CLEAN_STEPS, 'deploy': DEPLOY_STEPS, 'service': SERVICE_STEPS}

# Commands run in the background (IPA's async commands): their first answer is RUNNING unless asked with wait=true.
ASYNC = frozenset(('execute_clean_step', 'execute_deploy_step', 'execute_service_step', 'install_bootloader',
                   'power_off', 'reboot'))
# The checksum algorithm of a bare ``checksum`` by its length in hex digits.
CHECKSUM_LENGTHS = {32: 'md5', 64: 'sha256', 128: 'sha512'}


def inventory(mac):
    """What the played ramdisk finds on its hardware: one NIC with the node's MAC, one disk, 8 CPUs."""
    return {'interfaces': [{'name': 'eth0', 'mac_address': mac}],
            'cpu': {'count': 8, 'architecture': 'x86_64', 'model_name': 'played'},
            'memory': {'physical_mb': 16384, 'total': 16384 * 2 ** 20},
            'disks': [{'name': '/dev/sda', 'size': 100 * 2 ** 30, 'rotational': False}],
            'boot': {'current_boot_mode': 'uefi', 'pxe_interface': mac}, 'bmc_address': '127.0.0.1',
            'system_vendor': {'manufacturer': 'baremetal.lifecycle tests', 'product_name': 'played agent'}}


class CommandFailed(Exception):
    """A command the agent ends FAILED, with IPA's error type and details."""

    def __init__(self, kind, details):
        super().__init__(details)
        self.error = {'type': kind, 'code': 500, 'message': kind, 'details': details}


class PlayedNode(object):
    """One node's ramdisk: its token and commands of the current boot, and what the test switched."""

    def __init__(self, mac, key, callback_url, fast_track):
        self.mac, self.key, self.callback_url, self.fast_track = mac, key, callback_url, fast_track
        self.uuid = None          # the node Ironic enrolled the machine as (found by its port)
        self.token = None
        self.commands = []        # this boot's commands, as GET /v1/commands/ lists them
        self.received = []        # every command name Ironic sent, over all boots ('clean.get_clean_steps', ...)
        self.steps = []           # (step type, step name) of every step Ironic ran on the agent, over all boots
        self.downloads = []       # (url, algorithm, verified) of each image write_image fetched
        self.boots = self.heartbeats = self.inventories = 0
        self.heartbeat_times = []  # (sent, answered) of each heartbeat Ironic accepted, this machine's UTC clock
        self.errors = []          # what Ironic refused the agent (lookups, heartbeats), in words
        self.slow, self.fail, self.silent = {}, {}, False
        self.slow_status = 0
        self.held_status = 0      # answers to Ironic's command polls held now (the node is locked meanwhile)
        self.unplugged = False    # played no more (its thread ends)
        self.inventory_sent = False
        self.lock = threading.Lock()

    def shut_down(self):
        """The ramdisk is gone (powered off or rebooted): its token, commands and inventory with it."""
        with self.lock:
            self.token, self.commands, self.inventory_sent = None, [], False

    def busy(self):
        return bool(self.commands) and self.commands[-1]['command_status'] == 'RUNNING'


class AgentHandler(LoopbackHandler):
    """Serves ``/<MAC's hex digits>/v1/commands/`` for the played machines, ``/images/<name>`` for their
    downloads."""

    agent = None  # set on the subclass TestAgent makes

    def do_HEAD(self):
        self.answer()

    def answer(self):
        url = urllib.parse.urlsplit(self.path)
        parts = [part for part in url.path.split('/') if part]
        if len(parts) == 2 and parts[0] == 'images' and parts[1] in self.agent.images:
            data = self.agent.images[parts[1]]
            return self.send_answer(200, [('Content-Type', 'application/octet-stream')],
                                    b'' if self.command == 'HEAD' else data)
        played = self.agent.nodes.get(parts[0]) if len(parts) == 3 and parts[1:] == ['v1', 'commands'] else None
        if played is None:
            return self._json(404, {'faultstring': 'Not found: %s' % url.path})
        query = urllib.parse.parse_qs(url.query)
        if played.token is None or query.get('agent_token') != [played.token]:
            return self._json(401, {'faultstring': 'Invalid or missing agent token received.'})
        if self.command == 'GET':
            self.agent.answer_slowly(played)
            with played.lock:
                return self._json(200, {'commands': [dict(command) for command in played.commands]})
        body = json.loads(self.request_body() or b'{}')
        status, record = self.agent.run_command(played, body.get('name', ''), body.get('params') or {},
                                                query.get('wait') == ['true'])
        return self._json(status, record)

    def _json(self, status, body):
        self.send_answer(status, [('Content-Type', 'application/json')], json.dumps(body).encode('utf-8'))


class AgentPlayer(object):
    """The played agents of many nodes against one Ironic (an ``IronicInstance``); see the module docstring."""

    def __init__(self, ironic, interval=1.0):
        self.ironic, self.interval = ironic, interval
        self.nodes, self.images = {}, {}
        self._stopping = threading.Event()
        self._threads = []
        handler = type('BoundAgentHandler', (AgentHandler,), {'agent': self})
        self.server = ThreadingHTTPServer(('127.0.0.1', 0), handler)
        self.server.daemon_threads = True
        self.url = 'http://127.0.0.1:%d' % self.server.server_address[1]
        self._start(self.server.serve_forever)

    def _start(self, target, *args):
        thread = threading.Thread(target=target, args=args, daemon=True)
        thread.start()
        self._threads.append(thread)

    def serve_image(self, name, data):
        """Serve ``data`` (bytes) at the returned URL on the agent's server: the image a deploy downloads."""
        self.images[name] = data
        return '%s/images/%s' % (self.url, name)

    def play(self, mac, fast_track=False):
        """Start playing the machine whose NIC has ``mac`` (the node whose port has it): a PlayedNode. With
        ``fast_track`` (the node's, or Ironic's ``[deploy]fast_track``) its ramdisk also runs in enroll, manageable
        and available while powered on."""
        key = mac.replace(':', '').lower()
        played = PlayedNode(mac, key, '%s/%s' % (self.url, key), fast_track)
        self.nodes[key] = played
        self._start(self._live, played)
        return played

    def unplug(self, played):
        """Stop playing the machine: its thread ends within ``interval`` seconds."""
        played.unplugged = True
        played.shut_down()

    def stop(self):
        """Stop every node's thread and the server; returns when they are all gone."""
        self._stopping.set()
        self.server.shutdown()
        self.server.server_close()
        for thread in self._threads:
            thread.join(10)

    # --- the ramdisk's side: lookup, heartbeats, inventory --------------------------------------------------
    def _live(self, played):
        while not self._stopping.wait(self.interval) and not played.unplugged:
            try:
                self._tick(played)
            except (OSError, AssertionError) as exc:  # Ironic restarting, or refusing (IronicAPIError): tried again
                played.errors.append(str(exc))

    def _tick(self, played):
        if played.uuid is None:
            ports = self.ironic.api('GET', '/ports?address=%s&fields=node_uuid' % played.mac)['ports']
            if not ports:
                return  # not enrolled yet
            played.uuid = ports[0]['node_uuid']
        node = self.ironic.api('GET', '/nodes/%s?fields=provision_state,power_state' % played.uuid, expect=(200, 404))
        if node is None or 'provision_state' not in node:
            played.uuid = None  # deleted
            played.shut_down()
            return
        state = node['provision_state']
        running = node['power_state'] == 'power on' and (
            state in RAMDISK_STATES or (played.fast_track and state in FAST_TRACK_STATES))
        if not running:
            played.shut_down()
            return
        if played.silent:
            return
        if state == 'inspect wait' and not played.inventory_sent:
            self.ironic.api('POST', '/continue_inspection', {'inventory': inventory(played.mac)})
            played.inventory_sent = True
            played.inventories += 1
            return
        if played.token is None and not self._look_up(played):
            return
        try:
            sent = datetime.datetime.now(datetime.timezone.utc)
            self.ironic.api('POST', '/heartbeat/%s' % played.uuid,
                            {'callback_url': played.callback_url, 'agent_version': AGENT_VERSION,
                             'agent_token': played.token})
            played.heartbeat_times.append((sent, datetime.datetime.now(datetime.timezone.utc)))
            played.heartbeats += 1
        except AssertionError as exc:  # conftest.IronicAPIError
            if 'token' not in str(getattr(exc, 'body', '')):
                raise
            played.shut_down()  # Ironic wiped the token: a power action rebooted the node

    def _look_up(self, played):
        """Lookup by MAC, as a freshly booted ramdisk does; True when it gave a usable token."""
        found = self.ironic.api('GET', '/lookup?addresses=%s' % played.mac, expect=(200, 404))
        token = ((found or {}).get('config') or {}).get('agent_token')
        if not found or 'node' not in found or not token or token.strip('*') == '':
            return False  # not in a state Ironic looks nodes up in, or a token another boot already took
        with played.lock:
            played.token, played.commands = token, []
            played.boots += 1
        return True

    def answer_slowly(self, played):
        """Waits ``played.slow_status`` seconds at most, ended early when the test sets it back to 0; meanwhile
        ``played.held_status`` counts the answer as held (a conductor waits on it holding the node's lock)."""
        with played.lock:
            played.held_status += 1
        try:
            self._wait_while(played.slow_status, lambda: played.slow_status)
        finally:
            with played.lock:
                played.held_status -= 1

    def _wait_while(self, seconds, condition):
        """Waits ``seconds`` at most, ended early when condition() no longer holds (the test changed its mind) or
        the player stops."""
        deadline = time.monotonic() + seconds
        while condition() and time.monotonic() < deadline and not self._stopping.wait(0.1):
            pass

    # --- the command API ----------------------------------------------------------------------------------
    def run_command(self, played, name, params, wait):
        """Runs a command Ironic sent: (HTTP status, the command's record as IPA returns it)."""
        extension, _dot, command = name.partition('.')
        with played.lock:
            played.received.append(name)
            if played.busy():
                return 409, {'faultstring': 'Agent is busy: %s is running' % played.commands[-1]['command_name']}
            record = {'id': str(uuid.uuid4()), 'command_name': command, 'command_params': params,
                      'command_status': 'RUNNING', 'command_result': None, 'command_error': None}
            played.commands.append(record)
        if command in ASYNC and not wait:
            self._start(self._finish, played, record, extension, command, params)
            with played.lock:
                return 200, dict(record)
        self._finish(played, record, extension, command, params)
        with played.lock:
            return 200, dict(record)

    def _finish(self, played, record, extension, command, params):
        try:
            result, status, error = self._result(played, extension, command, params), 'SUCCEEDED', None
        except CommandFailed as exc:
            result, status, error = None, 'FAILED', exc.error
        with played.lock:
            record.update(command_result=result, command_status=status, command_error=error)

    def _result(self, played, extension, command, params):
        if command == 'get_%s_steps' % extension and extension in STEPS:
            return {'%s_steps' % extension: {'GenericHardwareManager': [dict(s) for s in STEPS[extension]]},
                    'hardware_manager_version': HARDWARE_MANAGER_VERSION}
        if command == 'execute_%s_step' % extension and extension in STEPS:
            step = params.get('step') or {}
            name = step.get('step')
            played.steps.append((extension, name))
            self._wait_while(played.slow.get(name) or 0, lambda: name in played.slow)
            if name in played.fail:
                raise CommandFailed('%sError' % extension.capitalize(), played.fail[name])
            outcome = self._write_image(played, step.get('args') or {}) if name == 'write_image' else None
            return {'%s_result' % extension: outcome, '%s_step' % extension: step}
        if (extension, command) == ('standby', 'get_partition_uuids'):
            return {}  # a whole-disk image: no partition of the agent's making
        if (extension, command) in (('standby', 'sync'), ('standby', 'power_off'), ('image', 'install_bootloader')):
            return None
        raise CommandFailed('InvalidCommandError', 'Unknown command: %s.%s' % (extension, command))

    def _write_image(self, played, args):
        """Downloads the image and checks its checksum the way IPA's write_image does (nothing is written)."""
        info = args.get('image_info') or {}
        url = (info.get('urls') or [None])[0]
        algorithm, expected = info.get('os_hash_algo'), info.get('os_hash_value')
        if not (algorithm and expected):
            expected = info.get('checksum') or ''
            algorithm = CHECKSUM_LENGTHS.get(len(expected))
        if not url or not algorithm:
            raise CommandFailed('ImageDownloadError', 'No image URL or no checksum to verify it in %s' % info)
        try:
            with urllib.request.urlopen(url, timeout=30) as response:
                data = response.read()
        except (OSError, urllib.error.URLError) as exc:
            raise CommandFailed('ImageDownloadError', 'Downloading image %s failed: %s' % (url, exc)) from exc
        actual = hashlib.new(algorithm, data).hexdigest()
        played.downloads.append((url, algorithm, actual == expected.lower()))
        if actual != expected.lower():
            raise CommandFailed('ImageChecksumError', 'The image at %s does not match its %s checksum: expected '
                                '%s, computed %s' % (url, algorithm, expected, actual))
        return None

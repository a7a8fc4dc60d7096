# -*- coding: utf-8 -*-
"""Ironic on the system's MariaDB server, run by the role (ironic_standalone_database=mariadb): split (ironic-api and
two ironic-conductor processes), nodes move to available, a rerun writes nothing, and the role's stop leaves no
process; the single process too.

Marked mariadb: deselected by default (``make test`` has neither the time nor the system package), run by
``make test-mariadb`` (part of ``make test-compat``), or ``python -m pytest tests/integration -m mariadb``. Without the
system package mariadb-server the role fails, and so do these tests, saying to install it.
"""

from __future__ import annotations

import os
import subprocess

import pytest
from dedicated import pid_files, recorded_pids, result_of, running, start_module

pytestmark = pytest.mark.mariadb

NODES = 10


@pytest.fixture(scope='module')
def mariadb_ironic(make_split_ironic):
    return make_split_ironic(conductors=2, database='mariadb')


def mariadb_query(ironic, sql):
    """Runs SQL as Ironic's database user, with the client of the system's MariaDB."""
    port = str(ironic.role_vars['ironic_standalone_mariadb_port'])
    return subprocess.run(['mariadb', '--no-defaults', '-h', '127.0.0.1', '-P', port, '-u', 'ironic', '-N', '-e', sql,
                           'ironic'], capture_output=True, text=True, timeout=30, check=True).stdout.strip()


def test_nodes_move_to_available_on_mariadb_and_a_rerun_writes_nothing(mariadb_ironic, tmp_path):
    ironic = mariadb_ironic
    with open(os.path.join(ironic.base_dir, 'ironic.conf'), encoding='utf-8') as handle:
        assert 'connection = mysql+pymysql://ironic@127.0.0.1:%d/ironic\n' % (
            ironic.role_vars['ironic_standalone_mariadb_port']) in handle.read()
    names = [ironic.api('POST', '/v1/nodes', {'name': 'mariadb-%02d' % index, 'driver': 'fake-hardware'})['name']
             for index in range(NODES)]
    # Ironic's nodes are rows of MariaDB.
    assert mariadb_query(ironic, "SELECT COUNT(*) FROM nodes WHERE name LIKE 'mariadb-%'") == str(NODES)

    first = result_of(start_module(ironic, tmp_path, nodes=names, state='available', concurrency=NODES, timeout=300))
    assert not first.get('failed'), first
    assert first['totals']['changed'] == NODES
    states = mariadb_query(ironic, "SELECT DISTINCT provision_state FROM nodes WHERE name LIKE 'mariadb-%'")
    assert states == 'available'

    mark = ironic.log_mark()
    rerun = result_of(start_module(ironic, tmp_path, nodes=names, state='available', concurrency=NODES, timeout=300))
    assert not rerun.get('failed') and not rerun['changed'], rerun
    assert ironic.write_requests_since(mark) == []


def test_the_roles_stop_stops_mariadb_and_ironic_by_their_pids(mariadb_ironic):
    ironic = mariadb_ironic
    rc, output = ironic.playbook('start')  # already running: nothing to change
    assert rc == 0 and 'changed=0' in output, output
    assert pid_files(ironic) == ['ironic-conductor-1.pid', 'ironic-conductor-2.pid', 'ironic.pid', 'mariadb.pid']
    pids = recorded_pids(ironic)
    with open('/proc/%d/cmdline' % pids[-1], 'rb') as handle:
        assert os.path.basename(handle.read().split(b'\0')[0]) in (b'mariadbd', b'mysqld')
    assert all(running(pid) for pid in pids)

    rc, output = ironic.playbook('stop')
    assert rc == 0, output
    assert not [pid for pid in pids if running(pid)]
    assert pid_files(ironic) == []


def test_the_single_process_runs_on_mariadb_too(make_ironic, tmp_path):
    ironic = make_ironic(database='mariadb')
    ironic.start()
    name = ironic.api('POST', '/v1/nodes', {'name': 'mariadb-single', 'driver': 'fake-hardware'})['name']
    result = result_of(start_module(ironic, tmp_path, nodes=[name], state='available', timeout=300))
    assert not result.get('failed') and result['totals']['changed'] == 1, result
    assert mariadb_query(ironic, "SELECT provision_state FROM nodes WHERE name = 'mariadb-single'") == 'available'
    assert pid_files(ironic) == ['ironic.pid', 'mariadb.pid']
    pids = recorded_pids(ironic)
    assert all(running(pid) for pid in pids)

    rc, output = ironic.playbook('stop')  # the role's own stop
    assert rc == 0, output
    assert not [pid for pid in pids if running(pid)]
    assert pid_files(ironic) == []

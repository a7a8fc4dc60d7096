# -*- coding: utf-8 -*-
"""Ironic's real ``direct`` deploy interface, agent cleaning and agent inspection, driven by the collection's modules,
against the test agent (tests/integration/agent.py), which plays the booted ramdisk over Ironic's real agent protocol
on loopback: lookup, heartbeats, the command API, the image download and its checksum. Boot, power and management
stay ``fake``: the agent is the far end, not the BMC.

One agent-driven Ironic for the whole file (``--dist loadfile`` keeps the file on one worker), one machine (MAC) per
test."""

from __future__ import annotations

import datetime
import hashlib
import json
import threading
import re
import time
import uuid

import pytest

from agent import AgentPlayer
from nodes import RawIronic

# Seconds between two heartbeats of the played agents (IPA's own period is minutes; Ironic acts on each heartbeat,
# so this is how fast a step's end is noticed).
HEARTBEAT = 1.0
# Ironic's callback timeout for cleaning, deployment, servicing and inspection here (see AGENT_IRONIC).
CALLBACK_TIMEOUT = 20

# The test Ironic, and why each setting differs from Ironic's default.
AGENT_IRONIC = {
    # Ironic's own 'agent' inspect interface, to receive the inventory the agent posts (the role enables only fake
    # and no-inspect).
    'DEFAULT': {'enabled_inspect_interfaces': 'fake,no-inspect,agent'},
    'agent': {
        # The test agent serves plain http on loopback; Ironic's default refuses callback URLs without https.
        'require_tls': 'false',
        # The test agent does not play log.collect_system_logs (default on_failure: Ironic would ask after a
        # failed step and log its own error).
        'deploy_logs_collect': 'never',
        # Fake power is not switched off by the agent's standby.power_off: Ironic forces it off after this many
        # polls of the power state, 1 s apart (default 6 polls 5 s apart: 30 s added to every deploy).
        'post_deploy_get_power_state_retries': '1',
        'post_deploy_get_power_state_retry_interval': '1',
    },
    'conductor': {
        # Ironic fails a node whose agent went silent after this many seconds (default 1800) and checks every 2 s
        # (default 60): the silent-agent test waits for the real timeout, not half an hour.
        'clean_callback_timeout': str(CALLBACK_TIMEOUT),
        'deploy_callback_timeout': str(CALLBACK_TIMEOUT),
        'service_callback_timeout': str(CALLBACK_TIMEOUT),
        'check_provision_state_interval': '2',
    },
    # The URL the ramdisk is told to call back (Ironic refuses to boot one without it): this Ironic's own, its port
    # known only when the role renders ironic.conf (standalone Ironic has no Keystone catalog to find it in).
    'service_catalog': {'endpoint_override': 'http://{{ ironic_standalone_host }}:{{ ironic_standalone_port }}'},
    # fake boot cannot manage the inspection ramdisk: Ironic powers the node on and the agent posts its inventory.
    'inspector': {'require_managed_boot': 'false'},
}

INTERFACES = {'deploy': 'direct', 'boot': 'fake', 'power': 'fake', 'management': 'fake', 'inspect': 'agent'}
# fake management sets no boot device but PXE, and Ironic's direct deploy sets the disk after writing the image,
# except on Lenovo hardware in UEFI mode (Ironic's default boot mode), which it leaves to the firmware
# (agent.set_boot_to_disk): the played machines say they are Lenovo's.
PROPERTIES = {'vendor': 'Lenovo'}
IMAGE = b'baremetal.lifecycle whole-disk test image\n' * 100  # a few KB
SECRET = 'hunter2-%s' % uuid.uuid4().hex[:8]


# Seconds between two power-state syncs of the test Ironic (default 60): the sync of Ironic 31.0 and newer clears the
# last_error of a failed node once its history keeps it, and the test of a failed deploy sees that happen.
SYNC_POWER_STATE_INTERVAL = 2


@pytest.fixture(scope='module')
def agent_ironic(shared_ironic):
    return shared_ironic(ironic_standalone_config_overrides=AGENT_IRONIC,
                         ironic_standalone_sync_power_state_interval=SYNC_POWER_STATE_INTERVAL)


@pytest.fixture(scope='module')
def agent(agent_ironic):
    played = AgentPlayer(agent_ironic, interval=HEARTBEAT)
    yield played
    played.stop()


@pytest.fixture
def machine(agent, agent_ironic):
    """Factory ``machine(fast_track=False)``: a new played machine (agent.PlayedNode); after the test, its node
    deleted."""
    macs = []

    def make(fast_track=False):
        macs.append('52:54:00:%02x:%02x:%02x' % tuple(uuid.uuid4().bytes[:3]))
        return agent.play(macs[-1], fast_track=fast_track)

    yield make
    for mac in macs:
        played = agent.nodes[mac.replace(':', '')]
        agent.unplug(played)
        if played.uuid:
            agent_ironic.api('PUT', '/nodes/%s/maintenance' % played.uuid, {'reason': 'test cleanup'}, expect=None)
            agent_ironic.api('DELETE', '/nodes/%s' % played.uuid, expect=None)


def instance_info(agent, checksum=None):
    url = agent.serve_image('disk-%s.img' % uuid.uuid4().hex[:6], IMAGE)
    return {'image_source': url, 'image_checksum': checksum or hashlib.sha256(IMAGE).hexdigest(),
            'image_disk_format': 'raw'}


def states_since(ironic, mark, node_uuid):
    """The provision states Ironic's log shows the node entering after mark, in order."""
    pattern = re.compile(r'Node %s moved to provision state "([^"]+)" from state "([^"]+)"' % node_uuid)
    return [match.group(1) for match in pattern.finditer(ironic.log_since(mark))]


AGENT_PATHS = ('/v1/heartbeat/', '/v1/lookup', '/v1/continue_inspection')


def collection_writes(ironic, mark):
    """The writes logged after mark that the collection sent (the agent's heartbeats and inventories left out), as
    'METHOD path' strings, the node's UUID as NODE and a port's as PORT."""
    writes = []
    for request in ironic.write_requests_since(mark):
        if not request.path.startswith(AGENT_PATHS):
            path = re.sub(r'/v1/(nodes|ports)/[0-9a-f-]{36}',
                          lambda m: '/v1/%s/%s' % (m.group(1), m.group(1)[:-1].upper()), request.path.split('?')[0])
            writes.append('%s %s %d' % (request.method, path, request.status))
    return writes


def enroll(run_module, ironic, played, **args):
    """The machine enrolled and brought to rest by baremetal_node (available unless said otherwise): its result."""
    args.setdefault('provision_state', 'available')
    return run_module('baremetal_node', endpoint=ironic.endpoint, name='agent-%s' % played.key, driver='fake-hardware',
                      interfaces=INTERFACES, properties=PROPERTIES, ports=[{'address': played.mac}], timeout=300,
                      **args)


def move(run_module, ironic, played, state, **args):
    return run_module('baremetal_provision_state', endpoint=ironic.endpoint, node='agent-%s' % played.key, state=state,
                      timeout=300, **args)


def when(what, condition, timeout=120.0):
    """Wait for condition() to hold (an event of the played agent), failing after timeout seconds naming what."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, 'never happened: %s' % what
        time.sleep(0.1)


def in_background(target):
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread


def test_enroll_clean_deploy_and_undeploy_run_through_the_agents_wait_states(agent_ironic, agent, machine,
                                                                             run_module):
    played = machine()
    mark = agent_ironic.log_mark()
    enrolled = enroll(run_module, agent_ironic, played)
    assert not enrolled.get('failed'), enrolled.get('msg')
    assert [(t['verb'], t['to']) for t in enrolled['provision']['transitions']] == [
        ('manage', 'manageable'), ('provide', 'available')]
    # Automated cleaning ran on the agent: Ironic asked for its steps and ran those with a priority, highest first,
    # each through 'clean wait' until a heartbeat showed it done.
    assert played.received[:3] == ['clean.get_clean_steps', 'clean.execute_clean_step', 'clean.execute_clean_step']
    assert played.steps == [('clean', 'erase_devices_metadata'), ('clean', 'erase_devices')]
    assert states_since(agent_ironic, mark, played.uuid) == [
        'verifying', 'manageable', 'cleaning', 'clean wait', 'cleaning', 'clean wait', 'cleaning', 'clean wait',
        'cleaning', 'available']
    assert collection_writes(agent_ironic, mark) == [
        'POST /v1/nodes 201', 'POST /v1/ports 201', 'PUT /v1/nodes/NODE/states/provision 202',
        'PUT /v1/nodes/NODE/states/provision 202']

    mark = agent_ironic.log_mark()
    deployed = move(run_module, agent_ironic, played, 'active', instance_info=instance_info(agent))
    assert not deployed.get('failed'), deployed.get('msg')
    assert [(t['verb'], t['to']) for t in deployed['transitions']] == [('set_instance_info', 'available'),
                                                                       ('active', 'active')]
    # The agent downloaded the image from the loopback server and its SHA-256 matched; Ironic then asked for the
    # partitions, installed the boot loader (UEFI) and powered the ramdisk off.
    assert [(ok, algorithm) for _url, algorithm, ok in played.downloads] == [(True, 'sha256')]
    assert played.received[3:] == ['deploy.get_deploy_steps', 'deploy.execute_deploy_step',
                                   'standby.get_partition_uuids', 'image.install_bootloader', 'standby.power_off']
    assert states_since(agent_ironic, mark, played.uuid) == [
        'deploying', 'wait call-back', 'deploying', 'wait call-back', 'deploying', 'active']
    # Ironic first rebooted the node into the ramdisk (what fast-track skips: see the last test).
    assert power_actions_since(agent_ironic, mark, played.uuid)[0] == 'power on by rebooting'
    assert collection_writes(agent_ironic, mark) == ['PATCH /v1/nodes/NODE 200',
                                                     'PUT /v1/nodes/NODE/states/provision 202']

    mark = agent_ironic.log_mark()
    boots = played.boots
    undeployed = move(run_module, agent_ironic, played, 'available', allow_destructive=True)
    assert not undeployed.get('failed'), undeployed.get('msg')
    assert [(t['verb'], t['to']) for t in undeployed['transitions']] == [('deleted', 'available')]
    assert played.boots == boots + 1 and played.steps[-2:] == [('clean', 'erase_devices_metadata'),
                                                               ('clean', 'erase_devices')]
    assert states_since(agent_ironic, mark, played.uuid) == [
        'deleting', 'cleaning', 'clean wait', 'cleaning', 'clean wait', 'cleaning', 'clean wait', 'cleaning',
        'available']
    assert collection_writes(agent_ironic, mark) == ['PUT /v1/nodes/NODE/states/provision 202']


def test_an_agent_that_goes_silent_in_clean_wait_fails_with_ironics_reason_and_a_rerun_recovers_it(
        agent_ironic, agent, machine, run_module):
    played = machine()
    enrolled = enroll(run_module, agent_ironic, played, provision_state='manageable')
    assert not enrolled.get('failed'), enrolled.get('msg')
    played.slow['erase_devices_metadata'] = 600  # the first step runs... and the agent goes silent during it

    def silence():
        when('the first clean step', lambda: ('clean', 'erase_devices_metadata') in played.steps)
        played.silent = True

    in_background(silence)
    result = move(run_module, agent_ironic, played, 'available')
    node = agent_ironic.api('GET', '/nodes/%s' % played.uuid)
    assert played.silent and node['provision_state'] == 'clean failed'
    # Ironic failed the node at its callback timeout (its words say so), and the task reports them.
    reason = RawIronic(agent_ironic).failure_reason(played.uuid)
    assert 'Timeout reached while cleaning the node' in reason
    assert result['failed'] and reason in result['msg']
    assert [(t['verb'], t['to']) for t in result['transitions']] == [('provide', 'clean failed')]

    # Ironic put the node in maintenance for its fault: a rerun is refused, naming the way out, and writes nothing;
    # with clear_fault the rerun recovers it, the agent healthy again.
    played.slow.clear()
    played.silent = False
    mark = agent_ironic.log_mark()
    refused = move(run_module, agent_ironic, played, 'available')
    assert refused['failed'] and 'clean failure' in refused['msg'] and 'clear_fault: true' in refused['msg']
    assert collection_writes(agent_ironic, mark) == []
    rerun = move(run_module, agent_ironic, played, 'available', clear_fault=True)
    assert not rerun.get('failed'), rerun.get('msg')
    assert [(t['verb'], t['to']) for t in rerun['transitions']] == [
        ('clear_fault', 'clean failed'), ('manage', 'manageable'), ('provide', 'available')]
    assert played.steps[-2:] == [('clean', 'erase_devices_metadata'), ('clean', 'erase_devices')]


def test_a_step_the_agent_fails_is_reported_in_ironics_words_masked_and_not_run_again(
        agent_ironic, agent, machine, run_module):
    played = machine()
    enrolled = enroll(run_module, agent_ironic, played, provision_state='manageable')
    assert not enrolled.get('failed'), enrolled.get('msg')
    played.fail['erase_devices'] = 'the disk controller refused: ipmitool -U admin -P %s failed' % SECRET
    mark = agent_ironic.log_mark()
    result = move(run_module, agent_ironic, played, 'available')
    node = agent_ironic.api('GET', '/nodes/%s' % played.uuid)
    assert node['provision_state'] == 'clean failed'
    reason = RawIronic(agent_ironic).failure_reason(played.uuid)
    assert 'Clean step deploy.erase_devices failed' in reason and SECRET in reason
    assert result['failed'] and 'the disk controller refused' in result['msg']
    assert SECRET not in json.dumps(result)
    # The failed cleaning was not started again: one provide, the step run once.
    assert collection_writes(agent_ironic, mark) == ['PUT /v1/nodes/NODE/states/provision 202']
    assert played.steps.count(('clean', 'erase_devices')) == 1


def test_a_wrong_image_checksum_fails_the_deploy_in_ironics_words_and_it_is_not_retried(
        agent_ironic, agent, machine, run_module):
    played = machine()
    enrolled = enroll(run_module, agent_ironic, played)
    assert not enrolled.get('failed'), enrolled.get('msg')
    wrong = hashlib.sha256(b'another image').hexdigest()
    mark = agent_ironic.log_mark()
    result = move(run_module, agent_ironic, played, 'active', instance_info=instance_info(agent, checksum=wrong))
    node = agent_ironic.api('GET', '/nodes/%s' % played.uuid)
    assert node['provision_state'] == 'deploy failed'
    assert [(ok, algorithm) for _url, algorithm, ok in played.downloads] == [(False, 'sha256')]
    # Ironic's reason, wherever Ironic keeps it when the test reads it (its power-state sync may have cleared
    # last_error since: RawIronic.failure_reason), is the task's.
    reason = RawIronic(agent_ironic).failure_reason(played.uuid)
    assert 'Deploy step deploy.write_image failed' in reason and wrong in reason
    assert result['failed'] and reason in result['msg']
    # What the task reads when it comes late: Ironic's power-state sync clears the failed node's last_error, and
    # its history keeps the reason.
    when('Ironic clears the last_error',
         lambda: agent_ironic.api('GET', '/nodes/%s' % played.uuid)['last_error'] is None, timeout=60)
    assert 'Clearing last_error for node %s after confirmed power state match' % played.uuid in \
        agent_ironic.log_since(mark)
    assert RawIronic(agent_ironic).failure_reason(played.uuid) == reason
    assert collection_writes(agent_ironic, mark) == ['PATCH /v1/nodes/NODE 200',
                                                     'PUT /v1/nodes/NODE/states/provision 202']
    assert played.steps.count(('deploy', 'write_image')) == 1


def test_a_healthy_node_held_in_clean_wait_longer_than_every_grace_of_the_engine_converges(
        agent_ironic, agent, machine, run_module, monkeypatch, tmp_path):
    played = machine()
    enrolled = enroll(run_module, agent_ironic, played, provision_state='manageable')
    assert not enrolled.get('failed'), enrolled.get('msg')
    # Longer than STRANDED_GRACE (20 s) and SUSPECT_AFTER (10 s) of engine/waiter.py; heartbeats every second.
    played.slow['erase_devices'] = 30
    progress = tmp_path / 'progress.jsonl'
    monkeypatch.setenv('BAREMETAL_LIFECYCLE_PROGRESS_FILE', str(progress))
    heartbeats = played.heartbeats
    result = move(run_module, agent_ironic, played, 'available')
    assert not result.get('failed'), result.get('msg')
    assert [(t['verb'], t['to']) for t in result['transitions']] == [('provide', 'available')]
    assert result['transitions'][0]['seconds'] >= 30
    assert played.heartbeats - heartbeats >= 20
    lines = [json.loads(line) for line in progress.read_text(encoding='utf-8').splitlines()]
    assert {'clean wait'} <= set(line.get('state') for line in lines)
    # While the step ran, the progress showed the node in 'clean wait' during 'provide' (never stranded, never
    # awaiting a takeover), then at rest.
    # (A poll may miss the short 'cleaning' between 'manageable' and 'clean wait'; never a line besides these.)
    shown = {(line['state'], line['step']) for line in lines if 'node' in line}
    assert {('manageable', None), ('clean wait', 'provide'), ('available', None)} <= shown
    assert shown <= {('manageable', None), ('manageable', 'provide'), ('cleaning', 'provide'),
                     ('clean wait', 'provide'), ('available', None)}
    # and with the step Ironic reported the agent ran: the slow erase_devices, never a guess of the collection's.
    assert 'deploy.erase_devices' in set(line.get('running') for line in lines if line.get('state') == 'clean wait')
    # and with its agent's last heartbeat as Ironic recorded it: a line when a poll found a new one (polls are at
    # most 5 s apart), each one the agent really sent (Ironic records it as it handles the heartbeat, at most a
    # moment after answering it), and aged by Ironic's clock no more than the agent's period and that moment.
    heartbeats = [line for line in lines if line.get('heartbeat_at')]
    assert all(line.get('state') == 'clean wait' or 'agent' in line for line in heartbeats)
    assert len(heartbeats) >= 30 / 5
    assert all(0 <= line['heartbeat_age'] <= HEARTBEAT + 3 for line in heartbeats)
    sent = [(at - datetime.timedelta(seconds=0.1), answered + datetime.timedelta(seconds=1))
            for at, answered in played.heartbeat_times]
    for line in heartbeats:
        recorded = datetime.datetime.fromisoformat(line['heartbeat_at']).replace(tzinfo=datetime.timezone.utc)
        assert any(start <= recorded <= end for start, end in sent), line


def test_an_inspection_and_a_manual_clean_step_run_on_the_agent(agent_ironic, agent, machine, run_module):
    played = machine()
    enrolled = enroll(run_module, agent_ironic, played, provision_state='manageable')
    assert not enrolled.get('failed'), enrolled.get('msg')
    mark = agent_ironic.log_mark()
    inspected = move(run_module, agent_ironic, played, 'manageable', inspection='always')
    assert not inspected.get('failed'), inspected.get('msg')
    assert [(t['verb'], t['to']) for t in inspected['transitions']] == [('inspect', 'manageable')]
    # The agent posted its inventory once; Ironic's agent inspection read it (the architecture hook).
    assert played.inventories == 1
    assert agent_ironic.api('GET', '/nodes/%s' % played.uuid)['properties'].get('cpu_arch') == 'x86_64'
    assert states_since(agent_ironic, mark, played.uuid) == ['inspecting', 'inspect wait', 'inspecting', 'manageable']
    assert collection_writes(agent_ironic, mark) == ['PUT /v1/nodes/NODE/states/provision 202']

    mark = agent_ironic.log_mark()
    cleaned = move(run_module, agent_ironic, played, 'manageable',
                   clean_steps=[{'interface': 'deploy', 'step': 'burnin_cpu'}])
    assert not cleaned.get('failed'), cleaned.get('msg')
    assert [(t['verb'], t['to']) for t in cleaned['transitions']] == [('clean', 'manageable')]
    assert played.steps == [('clean', 'burnin_cpu')]
    assert states_since(agent_ironic, mark, played.uuid) == [
        'cleaning', 'clean wait', 'cleaning', 'clean wait', 'cleaning', 'manageable']
    assert collection_writes(agent_ironic, mark) == ['PUT /v1/nodes/NODE/states/provision 202']


def test_a_service_step_runs_on_the_agent_of_an_active_node(agent_ironic, agent, machine, run_module):
    played = machine()
    enrolled = enroll(run_module, agent_ironic, played)
    assert not enrolled.get('failed'), enrolled.get('msg')
    deployed = move(run_module, agent_ironic, played, 'active', instance_info=instance_info(agent))
    assert not deployed.get('failed'), deployed.get('msg')
    mark = agent_ironic.log_mark()
    serviced = move(run_module, agent_ironic, played, 'active',
                    service_steps=[{'interface': 'deploy', 'step': 'burnin_cpu'}])
    assert not serviced.get('failed'), serviced.get('msg')
    assert [(t['verb'], t['to']) for t in serviced['transitions']] == [('service', 'active')]
    assert played.steps[-1] == ('service', 'burnin_cpu')
    assert 'service wait' in states_since(agent_ironic, mark, played.uuid)
    assert collection_writes(agent_ironic, mark) == ['PUT /v1/nodes/NODE/states/provision 202']


def power_actions_since(ironic, mark, node_uuid):
    """The power actions Ironic's log shows it took on the node after mark: 'power on by rebooting', ..."""
    pattern = re.compile(r'Successfully set node %s power state to ([^.]+)\.' % node_uuid)
    return pattern.findall(ironic.log_since(mark))


def test_a_node_whose_agent_is_already_up_deploys_by_fast_track_without_a_reboot(agent_ironic, agent, machine,
                                                                                 run_module):
    played = machine(fast_track=True)
    # Fast-track for this node only (driver_info fast_track, over Ironic's [deploy]fast_track): after cleaning
    # Ironic leaves it powered on, and its agent goes on heartbeating in 'available'.
    enrolled = enroll(run_module, agent_ironic, played, driver_info={'fast_track': True})
    assert not enrolled.get('failed'), enrolled.get('msg')
    node = agent_ironic.api('GET', '/nodes/%s' % played.uuid)
    assert (node['provision_state'], node['power_state']) == ('available', 'power on')
    heartbeats = played.heartbeats
    when('a heartbeat in available', lambda: played.heartbeats > heartbeats)

    mark = agent_ironic.log_mark()
    boots = played.boots
    deployed = move(run_module, agent_ironic, played, 'active', instance_info=instance_info(agent))
    assert not deployed.get('failed'), deployed.get('msg')
    # No reboot before the image was written: the agent that was up took the deploy steps (the only power action
    # is the one that switches the ramdisk off after the image is written).
    assert played.boots == boots
    assert [(ok, algorithm) for _url, algorithm, ok in played.downloads] == [(True, 'sha256')]
    assert 'power on by rebooting' not in power_actions_since(agent_ironic, mark, played.uuid)
    assert states_since(agent_ironic, mark, played.uuid)[-1] == 'active'

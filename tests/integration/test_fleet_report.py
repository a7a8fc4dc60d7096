# -*- coding: utf-8 -*-
"""playbooks/fleet_report.yml against a real Ironic holding nodes in many states, with a fleet file they drift from:
the JSON it writes is valid against the schema the collection ships, and the HTML page, opened in headless Chromium,
shows the summary, the drifted nodes and every node, sorts its table, and never the secret of a node's last error.
The page of a fleet of 10,000 nodes (built without an Ironic that holds them: report_pages.py) filters, sorts and
shows the drifted nodes first in the browser, 500 rows at a time, and every node on request.

Ironic records firmware components only from a BMC (the Redfish firmware interface caches the BIOS and BMC versions;
fake-hardware records none, and sushy-tools' emulator gives every system one BMC version), so the test writes the rows
Ironic's Redfish interface would have cached into Ironic's own database (its firmware_information table, as
Ironic 39 defines it) before the report reads them through the API.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time

import jsonschema

from browser import chromium, panel_widths, parse, probe
from nodes import CLOSED_LOOPBACK_URL
from report_pages import report_of, write_page

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMA_PATH = os.path.join(ROOT, 'playbooks', 'files', 'fleet-report.schema.json')
ARTIFACTS = os.path.join(ROOT, '.work', 'artifacts')
ANSIBLE_PLAYBOOK = os.path.join(os.path.dirname(sys.executable), 'ansible-playbook')
IMAGE_PASSWORD = 'img-s3cret-4711'  # in the deploy image's URL: Ironic quotes the URL in last_error
BIOS = [{'name': 'ProcTurboMode', 'value': 'Disabled'}, {'name': 'LogicalProc', 'value': 'Enabled'}]

FLEET_FILE = '''
- name: rack1-node01          # as declared
  driver: fake-hardware
  resource_class: gold
  traits: [CUSTOM_RACK1]
  properties: {cpus: 32}
  firmware: [{component: bmc, version: "2.9", url: "http://127.0.0.1:9/bmc.bin"}]
- name: rack1-node02          # a trait missing, a BIOS setting changed by hand
  driver: fake-hardware
  resource_class: gold
  traits: [CUSTOM_RACK1, CUSTOM_GPU]
  bios_settings: {ProcTurboMode: Enabled, LogicalProc: Enabled}
- name: rack1-node03          # its BMC runs an older firmware than declared
  driver: fake-hardware
  resource_class: gold
  firmware: [{component: bmc, version: "2.10", url: "http://127.0.0.1:9/bmc.bin"}]
- name: rack1-node04
  driver: fake-hardware
  resource_class: silver
- name: rack1-node05          # declared gold, enrolled silver
  driver: fake-hardware
  resource_class: gold
- name: rack9-ghost           # declared, never enrolled
  driver: fake-hardware
'''


def create(ironic, name, **fields):
    return ironic.api('POST', '/nodes', dict({'name': name, 'driver': 'fake-hardware'}, **fields))


def settle(ironic, uuid, seconds=120):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        node = ironic.api('GET', '/nodes/%s' % uuid)
        if node['target_provision_state'] is None or node['provision_state'].endswith('failed'):
            return node
        time.sleep(0.1)
    raise AssertionError('node %s did not settle' % uuid)


def verb(ironic, uuid, target, **arguments):
    ironic.api('PUT', '/nodes/%s/states/provision' % uuid, dict(arguments, target=target))
    return settle(ironic, uuid)


def record_firmware(ironic, components):
    """Write firmware components for nodes into Ironic's database, as its Redfish firmware interface caches them:
    {node name: [(component, version, vendor, model)]}."""
    with sqlite3.connect(os.path.join(ironic.base_dir, 'ironic.sqlite'), timeout=30) as database:
        for name, entries in components.items():
            (node_id,) = database.execute('SELECT id FROM nodes WHERE name = ?', (name,)).fetchone()
            for component, version, vendor, model in entries:
                database.execute(
                    'INSERT INTO firmware_information (node_id, component, initial_version, current_version, vendor, '
                    "model, created_at, version) VALUES (?, ?, ?, ?, ?, ?, datetime('now'), '1.2')",
                    (node_id, component, version, version, vendor, model))


def build_fleet(ironic):
    """Nodes in many states, resting where an operator's requests left them."""
    nodes = {}
    for name, rc, traits, properties in (('rack1-node01', 'gold', ['CUSTOM_RACK1'], {'cpus': 32}),
                                         ('rack1-node02', 'gold', ['CUSTOM_RACK1'], {}),
                                         ('rack1-node03', 'gold', [], {}),
                                         ('rack1-node04', 'silver', [], {}),
                                         ('rack1-node05', 'silver', [], {})):
        node = create(ironic, name, resource_class=rc, properties=properties)
        if traits:
            ironic.api('PUT', '/nodes/%s/traits' % node['uuid'], {'traits': traits})
        verb(ironic, node['uuid'], 'manage')
        nodes[name] = node['uuid']
    # The fake BIOS interface keeps what a manual clean applied: rack1-node02's turbo was switched off by hand.
    verb(ironic, nodes['rack1-node02'], 'clean',
         clean_steps=[{'interface': 'bios', 'step': 'apply_configuration', 'args': {'settings': BIOS}}])
    for name in nodes:
        verb(ironic, nodes[name], 'provide')
    verb(ironic, nodes['rack1-node03'], 'active')
    ironic.api('PUT', '/nodes/%s/maintenance' % nodes['rack1-node04'], {'reason': 'Replacing a fan'})
    ironic.api('PATCH', '/nodes/%s' % nodes['rack1-node05'], [
        {'op': 'add', 'path': '/deploy_interface', 'value': 'direct'},
        {'op': 'add', 'path': '/instance_info', 'value': {
            'image_source': CLOSED_LOOPBACK_URL.replace('http://', 'http://admin:%s@' % IMAGE_PASSWORD),
            'image_checksum': '0' * 32, 'image_disk_format': 'raw'}}])
    failed = verb(ironic, nodes['rack1-node05'], 'active')
    assert failed['provision_state'] == 'deploy failed', failed
    create(ironic, 'rack2-node01')  # enrolled by someone, in no fleet file
    record_firmware(ironic, {
        'rack1-node01': [('bmc', '2.10', 'Contoso', 'R640'), ('bios', '1.4.2', 'Contoso', 'R640')],
        'rack1-node02': [('bmc', '2.10', 'Contoso', 'R640'), ('bios', '1.4.2', 'Contoso', 'R640')],
        'rack1-node03': [('bmc', '2.8', 'Contoso', 'R640'), ('bios', '1.4.2', 'Contoso', 'R640')],
        'rack1-node04': [('bmc', '7.1', 'Fabrikam', 'FX2'), ('bios', '3.0', 'Fabrikam', 'FX2')],
    })
    return nodes


def fleet_report(ironic, ansible_env, **extra_vars):
    """Run playbooks/fleet_report.yml as the docs say (-e fleet_cloud=... -e report_dir=...) against the instance, with
    the installed collection and the instance's clouds.yaml (ansible_env: the fixture); returns (rc, output)."""
    env = ansible_env(OS_CLIENT_CONFIG_FILE=ironic.clouds_yaml)
    command = [ANSIBLE_PLAYBOOK, 'playbooks/fleet_report.yml', '-e', 'fleet_cloud=%s' % ironic.cloud_name]
    for name, value in extra_vars.items():
        command += ['-e', '%s=%s' % (name, value)]
    process = subprocess.run(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             timeout=900, check=False)
    return process.returncode, process.stdout


def keep_artifact(path):
    os.makedirs(ARTIFACTS, exist_ok=True)
    kept = os.path.join(ARTIFACTS, os.path.basename(path))
    shutil.copyfile(path, kept)
    print('artifact: %s' % kept)
    return kept


def test_the_fleet_report_in_json_and_in_a_browser(make_ironic, ansible_env, tmp_path):
    ironic = make_ironic()
    ironic.start()
    uuids = build_fleet(ironic)
    assert IMAGE_PASSWORD in ironic.api('GET', '/nodes/%s' % uuids['rack1-node05'])['last_error']
    fleet_file = tmp_path / 'fleet.yml'
    fleet_file.write_text(FLEET_FILE, encoding='utf-8')
    report_dir = tmp_path / 'report'

    mark = ironic.log_mark()
    rc, output = fleet_report(ironic, ansible_env, report_dir=report_dir, fleet_file=fleet_file)
    assert rc == 0, output
    assert ironic.write_requests_since(mark) == []
    reads = [request.path.split('?')[0] for request in ironic.requests_since(mark) if request.path.startswith('/v1/nodes')]
    # One list, each node's firmware, and the BIOS settings of the one node whose declaration has some.
    assert sorted(reads) == sorted(['/v1/nodes'] + ['/v1/nodes/%s/firmware' % uuid
                                                    for uuid in list(uuids.values()) + [_uuid(ironic, 'rack2-node01')]]
                                   + ['/v1/nodes/%s/bios' % uuids['rack1-node02']])

    report_text = (report_dir / 'fleet-report.json').read_text(encoding='utf-8')
    html = (report_dir / 'fleet-report.html').read_text(encoding='utf-8')
    for text in (report_text, html, output):
        assert IMAGE_PASSWORD not in text
    report = json.loads(report_text)
    with open(SCHEMA_PATH, encoding='utf-8') as handle:
        jsonschema.Draft7Validator(json.load(handle)).validate(report)
    check_report(report)
    check_page(report_dir / 'fleet-report.html', tmp_path)


def _uuid(ironic, name):
    return ironic.api('GET', '/nodes/%s' % name)['uuid']


def check_report(report):
    entries = dict((entry['name'], entry) for entry in report['nodes'])
    assert list(entries) == sorted(entries)
    assert report['summary'] == {
        'nodes': 6, 'provision_states': {'active': 1, 'available': 3, 'deploy failed': 1, 'enroll': 1},
        'in_maintenance': 1, 'failed': 1, 'with_fault': 0, 'with_last_error': 1, 'unhealthy': 0,
        'firmware_outliers': 1, 'drifted': 3, 'undeclared': 1, 'missing': 1, 'firmware_to_update': None}
    assert report['drift'] == {'declared_nodes': 6, 'drifted': ['rack1-node02', 'rack1-node03', 'rack1-node05'],
                               'undeclared': ['rack2-node01'], 'missing': ['rack9-ghost']}
    assert entries['rack1-node01']['drift'] == [] and entries['rack1-node01']['declared'] is True
    assert entries['rack1-node02']['drift'] == [
        {'field': 'traits', 'declared': ['CUSTOM_GPU', 'CUSTOM_RACK1'], 'reported': ['CUSTOM_RACK1']},
        {'field': 'bios_settings.ProcTurboMode', 'declared': 'Enabled', 'reported': 'Disabled'}]
    assert entries['rack1-node03']['drift'] == [{'field': 'firmware.bmc', 'declared': '2.10', 'reported': '2.8'}]
    assert entries['rack1-node05']['drift'] == [{'field': 'resource_class', 'declared': 'gold', 'reported': 'silver'}]
    assert entries['rack2-node01']['declared'] is False
    assert entries['rack1-node04']['maintenance'] is True
    assert entries['rack1-node04']['maintenance_reason'] == 'Replacing a fan'
    assert entries['rack1-node05']['provision_state'] == 'deploy failed' and '********' in entries['rack1-node05']['last_error']
    assert report['capacity'] == [
        {'resource_class': None, 'available': 0, 'active': 0, 'in_maintenance': 0, 'failed': 0, 'total': 1,
         'free_percent': 0.0},
        {'resource_class': 'gold', 'available': 2, 'active': 1, 'in_maintenance': 0, 'failed': 0, 'total': 3,
         'free_percent': 66.7},
        {'resource_class': 'silver', 'available': 0, 'active': 0, 'in_maintenance': 1, 'failed': 1, 'total': 2,
         'free_percent': 0.0}]
    groups = dict(((group['vendor'], group['model'], group['component']), group) for group in report['firmware']['groups'])
    assert sorted(groups) == [('Contoso', 'R640', 'bios'), ('Contoso', 'R640', 'bmc'), ('Fabrikam', 'FX2', 'bios'),
                              ('Fabrikam', 'FX2', 'bmc')]
    assert groups[('Contoso', 'R640', 'bmc')]['common_version'] == '2.10'
    assert groups[('Contoso', 'R640', 'bmc')]['outliers'] == [{'node': 'rack1-node03', 'version': '2.8'}]
    assert report['firmware']['outliers'] == ['rack1-node03']


def rows_of(document):
    return [row for row in document.find('nodes').iter('tr') if row.parent.tag == 'tbody']


def check_page(page, tmp_path):
    url = 'file://%s' % page
    document = parse(chromium('--dump-dom', url, workdir=tmp_path))

    def number(card):
        return next(document.find(card).iter('div')).text

    assert [number(card) for card in ('sum-nodes', 'sum-available', 'sum-active', 'sum-maintenance', 'sum-failed',
                                      'sum-firmware-outliers', 'sum-drifted', 'sum-undeclared', 'sum-missing')] == [
        '6', '2', '1', '1', '1', '1', '3', '1', '1']
    rows = rows_of(document)
    assert [next(row.iter('b')).text for row in rows] == [
        'rack1-node01', 'rack1-node02', 'rack1-node03', 'rack1-node04', 'rack1-node05', 'rack2-node01']
    # Six rows, fewer than the 500 the table shows at once: all of them, and no button to show more.
    assert document.find('shown').text == '6 of 6 nodes' and 'hidden' in document.find('more').attrs
    highlighted = dict((next(row.iter('b')).text, row.classes) for row in rows)
    assert 'drifted' in highlighted['rack1-node02'] and 'drifted' not in highlighted['rack1-node01']
    assert highlighted['rack1-node05'] >= {'drifted', 'failed'} and 'maintenance' in highlighted['rack1-node04']
    drifted_row = next(row for row in rows if 'rack1-node02' in row.text)
    assert 'bios_settings.ProcTurboMode Disabled → Enabled' in drifted_row.text
    assert 'rack9-ghost' in document.find('missing').text and 'rack2-node01' in document.find('undeclared').text
    assert 'rack1-node03 2.8' in document.find('firmware').text
    assert IMAGE_PASSWORD not in document.text and '********' in document.text

    # The sort the page applies from its address is the one a click on a header runs (its script, in the browser).
    sorted_document = parse(chromium('--dump-dom', url + '#sort=drift-desc', workdir=tmp_path))
    names = [next(row.iter('b')).text for row in rows_of(sorted_document)]
    assert names[:3] == ['rack1-node02', 'rack1-node03', 'rack1-node05'] and names[-1] == 'rack2-node01'
    assert sorted_document.find('nodes').attrs.get('data-sorted') == 'drift-desc'
    by_name = parse(chromium('--dump-dom', url + '#sort=name-desc', workdir=tmp_path))
    assert [next(row.iter('b')).text for row in rows_of(by_name)] == [
        'rack2-node01', 'rack1-node05', 'rack1-node04', 'rack1-node03', 'rack1-node02', 'rack1-node01']

    # Nothing is cut off: at any width what a panel cannot show scrolls, and in a desktop window (1280 pixels and
    # wider) the capacity table and the node table show whole.
    for width in (800, 1280, 1920):
        panels = panel_widths(page, width, tmp_path)
        assert {'capacity', 'firmware', 'nodes'} <= set(panels), panels
        for name, (needed, shown, overflow) in panels.items():
            assert needed <= shown or overflow in ('auto', 'scroll'), (width, name, needed, shown, overflow)
        if width >= 1280:
            assert [panels[name][0] <= panels[name][1] for name in ('capacity', 'nodes')] == [True, True], (
                width, panels)

    screenshot = tmp_path / 'fleet-report.png'
    chromium('--screenshot=%s' % screenshot, '--window-size=1400,1000', url, workdir=tmp_path)
    with open(screenshot, 'rb') as handle:
        assert handle.read(8) == b'\x89PNG\r\n\x1a\n'
    for path in (screenshot, page, page.parent / 'fleet-report.json'):
        keep_artifact(str(path))


# Run in the page of 10,000 nodes, once its own script has sorted the table from the address (#sort=drift-desc, the
# order a click on the drift header gives): which rows the table holds and what the counter says after each step, the
# steps as the events a person's clicks, typing and keys send. The table holds the first 500 rows of the order and the
# filter; the buttons under it show 500 more, or all.
LARGE_PAGE_PROBE = '''
var table = document.getElementById("nodes");
var filter = document.getElementById("filter");
var problems = document.getElementById("problems");
var more = document.getElementById("more");
function rows() { return Array.prototype.slice.call(table.tBodies[0].rows); }
function step() {
  return {names: rows().map(function (row) { return row.querySelector("b").textContent; }),
          drifted: rows().map(function (row) { return row.classList.contains("drifted"); }),
          problem: rows().map(function (row) { return row.getAttribute("data-problem") === "1"; }),
          hidden: rows().filter(function (row) { return row.style.display === "none"; }).length,
          counter: document.getElementById("shown").textContent, more: !more.hidden,
          sorted: table.getAttribute("data-sorted"), hash: window.location.hash,
          aria: Array.prototype.map.call(table.tHead.rows[0].cells, function (th) {
            return th.getAttribute("aria-sort"); })};
}
function type(text) { filter.value = text; filter.dispatchEvent(new Event("input")); }
function header(key) { return table.querySelector("th[data-key=" + key + "]"); }
var result = {opened: step()};
document.getElementById("show-more").click();
result.more = step();
document.getElementById("show-all").click();
result.all = step();
type("rack7-");
result.rack7 = step();
type("deploy failed");
result.deploy_failed = step();
type("");
result.cleared = step();
problems.click();
result.problems = step();
document.getElementById("show-all").click();
result.all_problems = step();
problems.click();
header("name").click();
result.by_name = step();
header("name").dispatchEvent(new KeyboardEvent("keydown", {key: "Enter", bubbles: true}));
result.by_name_desc = step();
return result;
'''


def rack_order(name):
    """Where rackR-nodeNN stands in the page's sort by name, which compares numbers as numbers (rack2 before rack10)."""
    rack, node = name[len('rack'):].split('-node')
    return int(rack), int(node)


def test_a_page_of_10000_nodes_filters_sorts_and_puts_the_drifted_nodes_first_in_a_browser(ansible_env, tmp_path):
    # How long Chromium takes over a page of this size is a bench figure (bench_fleet_report.py --page-sizes), never
    # asserted here.
    report = report_of(10000)
    page = write_page(report, tmp_path, ansible_env())
    found = probe(page, LARGE_PAGE_PROBE, tmp_path, fragment='#sort=drift-desc')

    entries = report['nodes']
    names = [entry['name'] for entry in entries]
    drifted = report['drift']['drifted']
    assert len(drifted) == report['summary']['drifted'] == 1000 and len(set(names)) == 10000
    assert sorted(drifted, key=names.index) == drifted  # in the order of the rows in the page

    # Opened sorted by drift: the first 500 of the drifted nodes; the counter says so, and more can be shown.
    opened = found['opened']
    assert (opened['sorted'], opened['hash'], opened['aria'][7]) == ('drift-desc', '#sort=drift-desc', 'descending')
    assert opened['names'] == drifted[:500] and opened['names'][0] == 'rack1-node04'
    assert (opened['counter'], opened['more']) == ('10000 of 10000 nodes, the first 500 shown', True)
    assert found['more']['names'] == drifted
    assert found['more']['counter'] == '10000 of 10000 nodes, the first 1000 shown'
    # Shown all: every node, the drifted ones first, and nothing more to show.
    shown_all = found['all']
    assert shown_all['names'][:1000] == drifted and sorted(shown_all['names']) == sorted(names)
    assert shown_all['drifted'].index(False) == 1000 and shown_all['drifted'].count(True) == 1000
    assert (shown_all['counter'], shown_all['more'], shown_all['hidden']) == ('10000 of 10000 nodes', False, 0)

    # The filter looks at every node, not only at those shown, and keeps the order of the sort (rack7's drifted
    # nodes first).
    rack7 = ['rack7-node%02d' % index for index in range(1, 41)]
    assert found['rack7']['names'] == [name for name in shown_all['names'] if name in set(rack7)]
    assert sorted(found['rack7']['names']) == rack7 and found['rack7']['names'][0] == 'rack7-node04'
    assert found['rack7']['counter'] == '40 of 10000 nodes'
    deploy_failed = set(entry['name'] for entry in entries if entry['provision_state'] == 'deploy failed')
    assert len(deploy_failed) == 200
    assert found['deploy_failed']['names'] == [name for name in shown_all['names'] if name in deploy_failed]
    assert (found['deploy_failed']['counter'], found['deploy_failed']['more']) == ('200 of 10000 nodes', False)
    assert found['cleared']['names'] == drifted[:500]
    assert found['cleared']['counter'] == '10000 of 10000 nodes, the first 500 shown'

    with_problem = [entry['name'] for entry in entries if entry['drift'] or entry['maintenance']
                    or entry['provision_state'] == 'deploy failed' or entry['last_error']]
    assert len(with_problem) > 1000
    assert found['problems']['counter'] == '%d of 10000 nodes, the first 500 shown' % len(with_problem)
    assert found['problems']['names'] == drifted[:500]
    assert sorted(found['all_problems']['names']) == sorted(with_problem)
    assert all(found['all_problems']['problem']) and found['all_problems']['more'] is False

    # A click on the name header sorts every node by name; Enter on the header (the keyboard) reverses the order.
    by_name = sorted(names, key=rack_order)
    assert by_name[:2] == ['rack1-node01', 'rack1-node02'] and by_name[480] == 'rack13-node01'
    assert found['by_name']['names'] == by_name[:500]
    assert (found['by_name']['sorted'], found['by_name']['hash']) == ('name-asc', '#sort=name-asc')
    assert found['by_name']['aria'] == ['ascending'] + [None] * 8
    assert found['by_name']['counter'] == '10000 of 10000 nodes, the first 500 shown'
    assert found['by_name_desc']['names'] == by_name[::-1][:500]
    assert (found['by_name_desc']['sorted'], found['by_name_desc']['aria'][0]) == ('name-desc', 'descending')


def test_a_fleet_that_cannot_be_compared_fails_naming_each_problem_before_any_node_is_read(ironic, run_module):
    mark = ironic.log_mark()
    result = run_module('baremetal_fleet_report', check=True, fleet=[
        {'name': 'rack1-node01', 'firmware': [{'component': 'bmc', 'url': 'http://127.0.0.1:9/bmc.bin'}]},
        {'name': 'rack1-node02', 'traits': 'CUSTOM_GPU'}])
    assert result['failed']
    assert result['msg'] == (
        'The fleet is not valid; nothing was read: fleet[0] (rack1-node01): firmware[0].version is required and must '
        'be a non-empty string. fleet[1] (rack1-node02): traits: must be a list of trait names.')
    assert [request for request in ironic.requests_since(mark) if request.path.startswith('/v1/nodes')] == []


def test_in_check_mode_the_module_reads_and_writes_nothing(ironic, run_module):
    mark = ironic.log_mark()
    result = run_module('baremetal_fleet_report', check=True, firmware=False)
    assert not result.get('failed'), result
    assert result['changed'] is False and result['report']['firmware']['read'] is False
    assert result['report']['summary']['nodes'] == len(result['report']['nodes'])
    assert ironic.write_requests_since(mark) == []


# The firmware baseline of the emulated systems (redfish_firmware.py): Ironic's redfish firmware interface records
# the BIOS version each system reports and the emulator's BMC version (1.00); the manager's model is the model.
EMULATED_MODEL = 'Joo Janta 200'
BASELINE_FILE = '''
- name: Emulated system
  match: {vendor: Sushy Emulator, model: Joo Janta 200}
  components:
    - component: bmc
      version: "1.00"
      url: http://127.0.0.1:9/bmc-1.00.bin
    - component: bios
      version: 1.2.0
      url: http://127.0.0.1:9/bios-1.2.0.bin
      stepping_stones:
        - {version: 1.1.0, url: "http://127.0.0.1:9/bios-1.1.0.bin"}
    - component: "nic:*"
      version: "22.40"
      url: http://127.0.0.1:9/nic-22.40.bin
'''


def test_firmware_baseline_compliance_from_the_components_ironic_records_through_redfish(
        make_ironic, redfish_bmc, ansible_env, tmp_path):
    """Two emulated Redfish systems, whose components Ironic's real redfish firmware interface records when it
    verifies them (manage), and a fake-hardware node of the same model that records none: the report shows one at
    target, one behind with its plan through the stepping stone, and the fake one unknown, saying why. Each system's
    NIC has a serial number of its own (Ironic names it nic:<serial>): the baseline's nic:* judges each."""
    ironic = make_ironic()
    ironic.role_vars['ironic_standalone_config_overrides'] = {
        'DEFAULT': {'enabled_firmware_interfaces': 'fake,no-firmware,redfish'}}
    ironic.start()
    bmc = redfish_bmc(systems=2, bios_versions=['1.2.0', '1.0.0'],
                      nic_versions=[{'NIC.Slot.1': '22.40'}, {'NIC.Slot.1': '22.31'}],
                      nic_serials=[{'NIC.Slot.1': 'EN25G-0001'}, {'NIC.Slot.1': 'EN25G-0002'}])
    uuids = {}
    for index, name in enumerate(('fw-at-target', 'fw-behind')):
        node = create(ironic, name, driver='redfish', driver_info=bmc.driver_info(index), firmware_interface='redfish')
        assert verb(ironic, node['uuid'], 'manage')['provision_state'] == 'manageable'
        uuids[name] = node['uuid']
    create(ironic, 'fw-fake', properties={'vendor': 'Sushy Emulator', 'model': EMULATED_MODEL})
    recorded = ironic.api('GET', '/nodes/%s/firmware' % uuids['fw-behind'])['firmware']
    assert sorted((entry['component'], entry['current_version']) for entry in recorded) == [
        ('bios', '1.0.0'), ('bmc', '1.00'), ('nic:EN25G-0002', '22.31')], recorded
    baseline_file = tmp_path / 'baseline.yml'
    baseline_file.write_text(BASELINE_FILE, encoding='utf-8')
    report_dir = tmp_path / 'report'

    mark = ironic.log_mark()
    rc, output = fleet_report(ironic, ansible_env, report_dir=report_dir, firmware_baseline_file=baseline_file)
    assert rc == 0, output
    assert ironic.write_requests_since(mark) == []
    assert '1 behind their firmware baseline' in output

    report = json.loads((report_dir / 'fleet-report.json').read_text(encoding='utf-8'))
    with open(SCHEMA_PATH, encoding='utf-8') as handle:
        jsonschema.Draft7Validator(json.load(handle)).validate(report)
    entries = dict((entry['name'], entry['firmware_compliance']) for entry in report['nodes'])
    assert entries['fw-at-target'] == {'model': 'Emulated system', 'status': 'at_target', 'reason': None, 'plan': [],
                                       'components': [
        {'component': 'bmc', 'baseline_component': 'bmc', 'target': '1.00', 'current': '1.00', 'status': 'at_target',
         'behind_by': None, 'reason': None},
        {'component': 'bios', 'baseline_component': 'bios', 'target': '1.2.0', 'current': '1.2.0',
         'status': 'at_target', 'behind_by': None, 'reason': None},
        {'component': 'nic:EN25G-0001', 'baseline_component': 'nic:*', 'target': '22.40', 'current': '22.40',
         'status': 'at_target', 'behind_by': None, 'reason': None}]}
    assert entries['fw-behind']['status'] == 'behind'
    assert entries['fw-behind']['components'][1:] == [
        {'component': 'bios', 'baseline_component': 'bios', 'target': '1.2.0', 'current': '1.0.0', 'status': 'behind',
         'behind_by': 2, 'reason': None},
        {'component': 'nic:EN25G-0002', 'baseline_component': 'nic:*', 'target': '22.40', 'current': '22.31',
         'status': 'behind', 'behind_by': 1, 'reason': None}]
    assert entries['fw-behind']['plan'] == [
        {'component': 'bios', 'version': '1.1.0', 'url': 'http://127.0.0.1:9/bios-1.1.0.bin'},
        {'component': 'bios', 'version': '1.2.0', 'url': 'http://127.0.0.1:9/bios-1.2.0.bin'},
        {'component': 'nic:EN25G-0002', 'version': '22.40', 'url': 'http://127.0.0.1:9/nic-22.40.bin'}]
    assert entries['fw-fake']['model'] == 'Emulated system' and entries['fw-fake']['status'] == 'unknown'
    assert entries['fw-fake']['reason'] == 'its firmware interface (fake) records no components'
    assert report['firmware_baseline'] == {'unmatched': [], 'to_update': ['fw-behind'], 'models': [
        {'model': 'Emulated system', 'nodes': 3, 'components': [
            {'component': 'bmc', 'target': '1.00', 'at_target': 2, 'behind': 0, 'ahead': 0, 'unknown': 1, 'steps': 0},
            {'component': 'bios', 'target': '1.2.0', 'at_target': 1, 'behind': 1, 'ahead': 0, 'unknown': 1,
             'steps': 2},
            {'component': 'nic:*', 'target': '22.40', 'at_target': 1, 'behind': 1, 'ahead': 0, 'unknown': 1,
             'steps': 1}]}]}
    assert report['summary']['firmware_to_update'] == 1
    # The firmware panel groups the two NICs, each named after its serial number, as one vendor and model: nic:*.
    nics = [group for group in report['firmware']['groups'] if group['component'].startswith('nic:')]
    assert [(group['component'], group['nodes'], group['common_version'], group['outliers']) for group in nics] == [
        ('nic:*', 2, '22.40', [{'node': 'fw-behind', 'version': '22.31'}])], nics

    page = report_dir / 'fleet-report.html'
    document = parse(chromium('--dump-dom', 'file://%s' % page, workdir=tmp_path))
    assert next(document.find('sum-firmware-to-update').iter('div')).text == '1'
    rows = [row for row in document.find('compliance').iter('tr') if row.parent.tag == 'tbody']
    assert [(row.attrs.get('data-component'), [cell.text for cell in row.iter('td') if 'num' in cell.classes][-5:])
            for row in rows] == [('bmc', ['2', '0', '0', '1', '0']), ('bios', ['1', '1', '0', '1', '2']),
                                 ('nic:*', ['1', '1', '0', '1', '1'])]
    off = dict((row.attrs['id'], row) for row in document.find('compliance-nodes').iter('tr')
               if row.parent.tag == 'tbody')
    assert sorted(off) == ['compliance-%s' % uuid for uuid in sorted([uuids['fw-behind'], _uuid(ironic, 'fw-fake')])]
    behind = off['compliance-%s' % uuids['fw-behind']]
    assert 'behind' in behind.classes and 'bios 1.1.0' in behind.text and 'bios 1.2.0' in behind.text
    assert behind.text.index('bios 1.1.0') < behind.text.index('bios 1.2.0') < behind.text.index(
        'nic:EN25G-0002 22.40')
    assert 'nic:EN25G-0002 (nic:*) 22.31' in behind.text
    assert 'unknown: its firmware interface (fake) records no components' in off[
        'compliance-%s' % _uuid(ironic, 'fw-fake')].text
    for width in (800, 1280, 1400, 1920):
        panels = panel_widths(page, width, tmp_path)
        assert {'compliance', 'compliance-nodes', 'firmware'} <= set(panels), panels
        for name in ('compliance', 'compliance-nodes', 'firmware'):
            needed, shown, overflow = panels[name]
            assert needed <= shown or overflow in ('auto', 'scroll'), (width, name, panels[name])
        if width >= 1280:
            # In a desktop window the firmware panel shows whole, its outliers too: beside the capacity table at
            # 1400 pixels, its last column was cut off (seen in the screenshot), so the two stack below 1500.
            assert panels['firmware'][0] <= panels['firmware'][1], (width, panels['firmware'])
    screenshot = tmp_path / 'fleet-report-firmware.png'
    chromium('--screenshot=%s' % screenshot, '--window-size=1400,1000', 'file://%s' % page, workdir=tmp_path)
    keep_artifact(str(screenshot))

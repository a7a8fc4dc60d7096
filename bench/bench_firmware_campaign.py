# -*- coding: utf-8 -*-
"""A firmware campaign over 20 emulated Redfish systems of two models: baremetal_firmware_campaign, wall time.

Starts its own Ironic on a free loopback port with the test Ironic's firmware settings (tests/integration/
firmware_fleet.FIRMWARE_IRONIC: Ironic's real Redfish firmware interface, its update checks every second), its own
sushy-tools emulator of the systems on loopback (tests/integration/redfish_firmware.py: a model, BIOS, BMC and one
network adapter per system; an update fetches its image from a loopback server and reports the version it names),
and that image server. The nodes are enrolled with Ironic's redfish hardware type and deployed by adoption: Ironic's
firmware.update clean step of a manageable node needs the deploy ramdisk (requires_ramdisk), which this Ironic has
not, so every node is serviced (allow_disruptive). Each node's resource_class is its rack (rack-a, rack-b...): the
campaign runs group_by resource_class in waves of --wave-size.

Prints the campaign's output summary (waves, totals, each node's steps done), its wall time, and the versions
Ironic records after it; then stops the emulator, the image server and Ironic by their PIDs.

    python bench/bench_firmware_campaign.py [--systems 20] [--wave-size 5] [--racks 4] [--ironic-venv DIR] [--keep]
"""

import os
import sys
import time

import common

sys.path[:0] = [os.path.join(common.ROOT, 'tests', 'integration'), os.path.join(common.ROOT, 'tests')]

# tests/integration: the test Ironic's firmware settings and a node's fields; the emulator and its image server.
import firmware_fleet  # noqa: E402  pylint: disable=wrong-import-position
from redfish import FirmwareImages, RedfishBMC  # noqa: E402  pylint: disable=wrong-import-position

# The two models: (model, BIOS, BMC, {adapter: version}) they run, and one system in MODELS_CYCLE a model each.
# Every adapter has a serial number of its own (nic_serials), so Ironic names each system's NIC differently
# (nic:<serial>) and the baseline names them all with nic:*.
R640 = ('R640', '1.2', '2.8', {'NIC.Slot.1': '22.31'})
XL170 = ('XL170', '0.9', '5.1', {'NIC.Embedded.1': '14.2'})
MODELS_CYCLE = (R640, R640, R640, XL170, XL170)  # 3 R640 for 2 XL170


def nic_serials(models):
    """{adapter: serial number} a system: each system's adapter a serial of its own."""
    return [dict((adapter, 'SN%s%04d' % (model[0], index)) for adapter in model[3])
            for index, model in enumerate(models)]


def baseline(images):
    """The R640 needs BMC 2.9 on the way to 2.10 (a stepping stone), then BIOS, then its NIC; the XL170 its BIOS and
    its NIC. A NIC is named nic:*, every NIC a node records: its name (nic:<serial>) differs from node to node; the
    image names the adapter it updates, as a vendor's image names the adapter model it is for."""
    return [
        {'name': 'Contoso R640', 'match': {'model': 'R640'}, 'components': [
            {'component': 'bmc', 'version': '2.10', 'url': images.url('bmc', '2.10'),
             'stepping_stones': [{'version': '2.9', 'url': images.url('bmc', '2.9')}]},
            {'component': 'bios', 'version': '1.3', 'url': images.url('bios', '1.3')},
            {'component': 'nic:*', 'version': '22.40', 'url': images.url('nic:NIC.Slot.1', '22.40')}]},
        {'name': 'Fabrikam XL170', 'match': {'model': 'XL170'}, 'components': [
            {'component': 'bios', 'version': '1.0', 'url': images.url('bios', '1.0')},
            {'component': 'nic:*', 'version': '14.3', 'url': images.url('nic:NIC.Embedded.1', '14.3')}]},
    ]


def wait_at_rest(raw, uuids, states, seconds):
    """Poll (one list a second) until every node rests in one of states; raises on any other state or at the end."""
    deadline = time.monotonic() + seconds
    pending = set(uuids)
    while pending:
        if time.monotonic() > deadline:
            raise common.BenchError('%d nodes not in %s after %d s' % (len(pending), states, seconds))
        time.sleep(1)
        for node in raw.list_nodes():
            if node['uuid'] in pending and node['target_provision_state'] is None:
                if node['provision_state'] not in states:
                    raise common.BenchError('%s is %s: %s' % (node['uuid'], node['provision_state'],
                                                              node['last_error']))
                pending.discard(node['uuid'])


def enroll_adopted(raw, bmc, count, racks):
    """Every system a node, managed then adopted, all at once; (names, UUIDs, seconds)."""
    started = time.monotonic()
    names, uuids = [], []
    for index in range(count):
        fields = firmware_fleet.node_fields(bmc, index, name='fw-%02d' % index)
        fields['resource_class'] = 'rack-%s' % chr(ord('a') + index % racks)
        uuids.append(raw.call('POST', '/nodes', fields)['uuid'])
        names.append(fields['name'])
    for uuid in uuids:
        raw.call('PUT', '/nodes/%s/states/provision' % uuid, {'target': 'manage'})
    wait_at_rest(raw, uuids, ('manageable',), 300)
    for uuid in uuids:
        raw.call('PATCH', '/nodes/%s' % uuid,
                 [{'op': 'add', 'path': '/instance_info/image_source', 'value': 'http://127.0.0.1:9/disk.img'}])
        raw.call('PUT', '/nodes/%s/states/provision' % uuid, {'target': 'adopt'})
    wait_at_rest(raw, uuids, ('active',), 300)
    return names, uuids, time.monotonic() - started


def recorded_versions(raw, uuids):
    """{(component, version): how many nodes} as Ironic records them (every nic:<serial> counted as one name)."""
    counts = {}
    for uuid in uuids:
        for entry in raw.call('GET', '/nodes/%s/firmware' % uuid)['firmware']:
            name = 'nic:<serial>' if entry['component'].startswith('nic:') else entry['component']
            key = (name, entry['current_version'])
            counts[key] = counts.get(key, 0) + 1
    return sorted(counts.items())


def nic_names(raw, uuids):
    """How many different NIC component names Ironic records over the nodes (one a node: nic:<serial>)."""
    return len(set(entry['component'] for uuid in uuids
                   for entry in raw.call('GET', '/nodes/%s/firmware' % uuid)['firmware']
                   if entry['component'].startswith('nic:')))


def summary(result):
    lines = ['waves: %s' % ', '.join('[%s]' % ' '.join(wave) for wave in result.get('waves', []))]
    for entry in result['nodes']:
        lines.append('  %s (%s, wave %s, %s): %s%s' % (
            entry['node']['name'], entry['model'], entry.get('wave'), entry['mode'],
            ', '.join('%s %s' % (step['component'], step['version']) for step in entry['done']) or 'nothing done',
            ' ERROR %s' % entry['error'] if entry.get('error') else ''))
    lines.append('totals: %s' % result['totals'])
    lines.append('failed_nodes: %s' % result['failed_nodes'])
    return '\n'.join(lines)


def main():
    parser = common.options_parser(__doc__)
    parser.add_argument('--systems', type=int, default=20)
    parser.add_argument('--wave-size', type=int, default=5)
    parser.add_argument('--racks', type=int, default=4)
    args = parser.parse_args()
    models = [MODELS_CYCLE[index % len(MODELS_CYCLE)] for index in range(args.systems)]
    with common.ironic(args.ironic_venv, args.keep, config_overrides=firmware_fleet.FIRMWARE_IRONIC) as bench:
        bmc = RedfishBMC(os.path.join(bench.dir, 'bmc'), systems=args.systems, models=[m[0] for m in models],
                         bios_versions=[m[1] for m in models], bmc_versions=[m[2] for m in models],
                         nic_versions=[m[3] for m in models], nic_serials=nic_serials(models))
        images = FirmwareImages()
        try:
            bmc.start()
            names, uuids, seconds = enroll_adopted(bench.raw, bmc, args.systems, args.racks)
            print('%d nodes enrolled and adopted in %.1f s' % (len(names), seconds), flush=True)
            print('before: %s' % recorded_versions(bench.raw, uuids), flush=True)
            print('NIC component names Ironic records: %d' % nic_names(bench.raw, uuids), flush=True)
            seconds, result = bench.module('baremetal_firmware_campaign', cloud=bench.cloud, nodes=names,
                                           firmware_baseline=baseline(images), group_by='resource_class',
                                           wave_size=str(args.wave_size), allow_disruptive=True, timeout=3600)
            print()
            print('baremetal_firmware_campaign: %d systems of 2 models, group_by resource_class, wave_size %d'
                  % (args.systems, args.wave_size))
            print(summary(result) if 'nodes' in result else result)
            print('wall time: %.1f s; images fetched by the BMC: %d' % (seconds, len(images.fetched)))
            print('after: %s' % recorded_versions(bench.raw, uuids))
            if result.get('failed'):
                raise common.BenchError('the campaign failed: %s' % result.get('msg'))
        finally:
            images.stop()
            bmc.stop()


if __name__ == '__main__':
    main()

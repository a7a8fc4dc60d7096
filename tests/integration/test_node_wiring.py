# -*- coding: utf-8 -*-
"""baremetal_node's port groups, network_data and virtual media against a real Ironic (virtual media against a
sushy-tools BMC): idempotence, check mode without writes, diffs, many nodes, and bad input refused before any write."""

import functools
import json
import urllib.request
import uuid

from proxy import FaultProxy, ImageServer
from redfish import BMC_USERNAME, _basic
from test_node import assert_no_write, new_mac, playing_ironic_api


def groups_of(ironic, node_uuid):
    """{group name: (mode, properties, standalone_ports_supported, category, [member MAC addresses])}."""
    groups = ironic.api('GET', '/portgroups?node=%s&detail=true' % node_uuid)['portgroups']
    ports = ironic.api('GET', '/ports?node_uuid=%s&detail=true' % node_uuid)['ports']
    return dict((group['name'], (group['mode'], group['properties'], group['standalone_ports_supported'],
                                 group['category'],
                                 sorted(port['address'] for port in ports if port['portgroup_uuid'] == group['uuid'])))
                for group in groups)


def bond(tag, mode='active-backup', **fields):
    return dict(fields, name='bond-%s' % tag, mode=mode)


def test_port_groups_with_their_ports_then_a_rerun_a_change_with_diff_and_a_removal(ironic, run_module, new_name):
    name, tag = new_name(), uuid.uuid4().hex[:8]
    macs = sorted(new_mac() for _index in range(3))
    declared = dict(name=name, driver='fake-hardware',
                    port_groups=[bond(tag, address=macs[0].upper(), properties={'miimon': '100'}, category='storage'),
                                 bond(tag + '-b')],
                    ports=[{'address': macs[0], 'port_group': 'bond-%s' % tag},
                           {'address': macs[1], 'port_group': 'bond-%s' % tag, 'pxe_enabled': False},
                           {'address': macs[2]}])

    created = run_module('baremetal_node', diff=True, **declared)
    assert not created.get('failed'), created.get('msg')
    node_uuid = created['node']['uuid']
    assert groups_of(ironic, node_uuid) == {
        'bond-%s' % tag: ('active-backup', {'miimon': '100'}, True, 'storage', macs[:2]),
        'bond-%s-b' % tag: ('active-backup', {}, True, None, [])}
    assert [(group['name'], group['ports']) for group in created['node']['port_groups']] == [
        ('bond-%s' % tag, macs[:2]), ('bond-%s-b' % tag, [])]
    assert created['diff']['after']['port_groups'][0]['ports'] == macs[:2]

    mark = ironic.log_mark()
    again = run_module('baremetal_node', **declared)
    assert not again.get('failed') and not again['changed'], again
    assert_no_write(ironic, mark)

    # The second port moves to the other group, the first group changes its mode.
    declared['port_groups'][0]['mode'] = '802.3ad'
    declared['ports'][1]['port_group'] = 'bond-%s-b' % tag
    changed = run_module('baremetal_node', diff=True, **declared)
    assert not changed.get('failed') and changed['changed'], changed.get('msg')
    assert changed['diff']['before']['port_groups'][0]['mode'] == 'active-backup'
    assert changed['diff']['after']['port_groups'][0]['mode'] == '802.3ad'
    assert changed['diff']['after']['port_groups'][1]['ports'] == [macs[1]]
    assert groups_of(ironic, node_uuid)['bond-%s-b' % tag][4] == [macs[1]]

    # A group no longer declared is deleted, its port taken out of it first; the port stays.
    declared['port_groups'] = declared['port_groups'][:1]
    declared['ports'][1].pop('port_group')
    removed = run_module('baremetal_node', diff=True, **declared)
    assert not removed.get('failed') and removed['changed'], removed.get('msg')
    assert list(groups_of(ironic, node_uuid)) == ['bond-%s' % tag]
    ports = ironic.api('GET', '/ports?node_uuid=%s&detail=true' % node_uuid)['ports']
    assert sorted((port['address'], port['portgroup_uuid'] is None) for port in ports) == [
        (macs[0], False), (macs[1], True), (macs[2], True)]


def test_check_mode_plans_port_groups_network_data_without_a_write(ironic, run_module, fresh_node):
    node, tag = fresh_node(), uuid.uuid4().hex[:8]
    mac = new_mac()
    ironic.api('POST', '/v1/ports', {'address': mac, 'node_uuid': node['uuid']})
    mark = ironic.log_mark()
    result = run_module('baremetal_node', check=True, diff=True, name=node['name'],
                        port_groups=[bond(tag)], ports=[{'address': mac, 'port_group': 'bond-%s' % tag}],
                        network_data={'links': [], 'networks': [], 'services': []})
    assert not result.get('failed') and result['changed'], result.get('msg')
    assert result['diff']['after']['port_groups'] == [
        {'name': 'bond-%s' % tag, 'address': None, 'mode': 'active-backup', 'properties': None,
         'standalone_ports_supported': None, 'physical_network': None, 'category': None, 'ports': [mac]}]
    assert result['diff']['before']['network_data'] == {}
    assert_no_write(ironic, mark)
    assert groups_of(ironic, node['uuid']) == {}


def test_bad_port_groups_are_refused_before_any_write_in_a_task_of_many_nodes(ironic, run_module, fresh_node, new_name):
    taken, tag = fresh_node(), uuid.uuid4().hex[:8]
    ironic.api('POST', '/v1/portgroups', {'name': 'bond-%s' % tag, 'node_uuid': taken['uuid']})
    first, second, third = new_name(), new_name(), new_name()
    mark = ironic.log_mark()
    result = run_module('baremetal_node', nodes=[
        {'name': first, 'driver': 'fake-hardware', 'port_groups': [bond(tag + '-ok')]},
        {'name': second, 'driver': 'fake-hardware', 'port_groups': [bond(tag)]},  # another node's name
        {'name': third, 'driver': 'fake-hardware', 'ports': [{'address': new_mac(), 'port_group': 'nowhere'}],
         'port_groups': [], 'network_data': {'links': []}}])
    assert result['failed']
    assert 'port group name bond-%s is taken by port group' % tag in result['msg']
    assert "names port_group 'nowhere', which port_groups does not declare" in result['msg']
    assert 'network_data lacks networks, services' in result['msg']
    assert_no_write(ironic, mark)


def test_port_groups_in_bulk_and_an_older_api_is_refused_naming_the_version(ironic, run_module, new_name):
    names, tag = [new_name(), new_name()], uuid.uuid4().hex[:8]
    nodes = [{'name': name, 'driver': 'fake-hardware', 'port_groups': [bond('%s-%d' % (tag, index), category='c')]}
             for index, name in enumerate(names)]
    mark = ironic.log_mark()
    with FaultProxy(ironic.port, answer=playing_ironic_api('1.102')) as proxy:
        old = run_module('baremetal_node', nodes=nodes, endpoint=proxy.endpoint)
    assert old['failed'] and 'port group category needs Ironic API 1.103 or newer; this server supports up to 1.102' \
        in old['msg']
    assert_no_write(ironic, mark)

    done = run_module('baremetal_node', nodes=nodes, concurrency=2)
    assert not done.get('failed') and done['totals']['changed'] == 2, done.get('msg')
    again = run_module('baremetal_node', nodes=nodes)
    assert not again.get('failed') and not again['changed']


def test_network_data_is_set_changed_and_cleared_and_refused_on_an_older_api(ironic, run_module, fresh_node):
    node = fresh_node()
    document = {'links': [{'id': 'port0', 'type': 'phy', 'ethernet_mac_address': '52:54:00:12:34:56'}],
                'networks': [{'id': 'net0', 'type': 'ipv4', 'link': 'port0', 'ip_address': '192.0.2.7',
                              'netmask': '255.255.255.0', 'network_id': 'net0'}],
                'services': []}
    set_ = run_module('baremetal_node', diff=True, name=node['name'], network_data=document)
    assert not set_.get('failed') and set_['changed'], set_.get('msg')
    assert ironic.api('GET', '/nodes/%s' % node['uuid'])['network_data'] == document
    assert set_['diff'] == {'before': {'network_data': {}}, 'after': {'network_data': document}}

    mark = ironic.log_mark()
    assert not run_module('baremetal_node', name=node['name'], network_data=document)['changed']
    assert_no_write(ironic, mark)

    document['networks'][0]['ip_address'] = '192.0.2.8'
    assert run_module('baremetal_node', name=node['name'], network_data=document)['changed']
    assert ironic.api('GET', '/nodes/%s' % node['uuid'])['network_data']['networks'][0]['ip_address'] == '192.0.2.8'

    with FaultProxy(ironic.port, answer=playing_ironic_api('1.65')) as proxy:
        mark = ironic.log_mark()
        old = run_module('baremetal_node', name=node['name'], network_data={}, endpoint=proxy.endpoint)
    assert old['failed'] and 'network_data needs Ironic API 1.66 or newer; this server supports up to 1.65' in old['msg']
    assert_no_write(ironic, mark)

    cleared = run_module('baremetal_node', name=node['name'], network_data={})
    assert not cleared.get('failed') and cleared['changed'], cleared.get('msg')
    assert ironic.api('GET', '/nodes/%s' % node['uuid'])['network_data'] == {}


def bmc_virtual_cd(bmc):
    """(Inserted, Image) of the emulated BMC's virtual CD, as sushy-tools' Managers/VirtualMedia resource shows it."""
    def get(path):
        request = urllib.request.Request(bmc.address + path)
        request.add_unredirected_header('Authorization', 'Basic ' + _basic(BMC_USERNAME, bmc.password))
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())
    managers = get('/redfish/v1/Managers')['Members']
    for manager in managers:
        for member in get(get(manager['@odata.id'])['VirtualMedia']['@odata.id'])['Members']:
            device = get(member['@odata.id'])
            if 'CD' in device.get('MediaTypes', []) or 'DVD' in device.get('MediaTypes', []):
                return device.get('Inserted'), device.get('Image')
    raise AssertionError('the emulator offers no virtual CD')


def test_virtual_media_is_attached_rerun_masked_then_detached_on_sushy_tools(make_ironic, redfish_bmc, run_module,
                                                                             tmp_path):
    bmc, name = redfish_bmc(), 'vmedia-%s' % uuid.uuid4().hex[:8]
    with ImageServer(tmp_path) as images:
        # Ironic serves its copy of the image (Ironic 39 always copies) from our server.
        ironic = images.start_ironic(make_ironic)
        run = functools.partial(run_module, 'baremetal_node', endpoint=ironic.endpoint, name=name)
        enrolled = run(driver='redfish', driver_info=bmc.driver_info(0))
        assert not enrolled.get('failed'), enrolled.get('msg')
        url = images.url('reader:Zq-image-secret@')
        medium = {'device_type': 'cdrom', 'image_url': url}

        mark = ironic.log_mark()
        planned = run(check=True, diff=True, virtual_media=[medium])
        assert not planned.get('failed') and planned['changed'], planned.get('msg')
        assert_no_write(ironic, mark)
        assert bmc_virtual_cd(bmc)[0] is not True

        attached = run(diff=True, virtual_media=[medium])
        assert not attached.get('failed') and attached['changed'], attached.get('msg')
        inserted, image = bmc_virtual_cd(bmc)
        copy = '%s/redfish/cdrom-%s.iso' % (images.root_url, enrolled['node']['uuid'])
        assert inserted is True and image in (url, copy)
        assert 'Zq-image-secret' not in json.dumps(attached) and 'Zq-image-secret' not in json.dumps(planned)
        assert attached['node']['virtual_media'] == {'cdrom': image.replace('Zq-image-secret', '********')}
        assert attached['diff'] == {'before': {'virtual_media': {'cdrom': None}},
                                    'after': {'virtual_media': {'cdrom': images.url('reader:********@')}}}

        mark = ironic.log_mark()
        again = run(virtual_media=[medium])
        assert not again.get('failed') and not again['changed'], again.get('msg')
        assert_no_write(ironic, mark)
        record = ironic.api('GET', '/nodes/%s' % name)['extra']['baremetal_lifecycle_virtual_media']
        assert record == {'cdrom': images.url('reader:********@')}

        # Another image for the same device: the BMC shows Ironic's copy under the same name as before, and only the
        # record in the node's extra says which image that copy is of.
        (tmp_path / 'rescue.iso').write_bytes(b'\1' * 2048)
        rescue = {'device_type': 'cdrom', 'image_url': images.url().replace('boot.iso', 'rescue.iso')}
        mark = ironic.log_mark()
        planned = run(check=True, diff=True, virtual_media=[rescue])
        assert not planned.get('failed') and planned['changed'], planned.get('msg')
        assert planned['diff'] == {'before': {'virtual_media': {'cdrom': images.url('reader:********@')}},
                                   'after': {'virtual_media': {'cdrom': rescue['image_url']}}}
        assert_no_write(ironic, mark)
        replaced = run(virtual_media=[rescue])
        assert not replaced.get('failed') and replaced['changed'], replaced.get('msg')
        assert [request.path for request in ironic.write_requests_since(mark)].count(
            '/v1/nodes/%s/vmedia' % enrolled['node']['uuid']) == 1
        assert ironic.api('GET', '/nodes/%s' % name)['extra']['baremetal_lifecycle_virtual_media'] == {
            'cdrom': rescue['image_url']}
        mark = ironic.log_mark()
        assert not run(virtual_media=[rescue])['changed']
        assert_no_write(ironic, mark)

        detached = run(virtual_media=[{'device_type': 'cdrom', 'state': 'absent'}])
        assert not detached.get('failed') and detached['changed'], detached.get('msg')
        assert bmc_virtual_cd(bmc)[0] is False
        assert detached['node']['virtual_media'] == {'cdrom': None}
        assert 'baremetal_lifecycle_virtual_media' not in ironic.api('GET', '/nodes/%s' % name)['extra']
        ironic.stop()


def test_virtual_media_bad_input_and_an_older_api_are_refused_before_any_write(ironic, run_module, fresh_node):
    node = fresh_node()
    mark = ironic.log_mark()
    bad = run_module('baremetal_node', name=node['name'], virtual_media=[
        {'device_type': 'cdrom', 'image_url': 'ftp://127.0.0.1/boot.iso'},
        {'device_type': 'cdrom', 'state': 'absent'},
        {'device_type': 'floppy'}])
    assert bad['failed']
    assert 'virtual_media[0].image_url ftp://127.0.0.1/boot.iso is not a URL Ironic attaches' in bad['msg']
    assert 'virtual_media[1].device_type cdrom is listed twice' in bad['msg']
    assert 'virtual_media[2] needs image_url' in bad['msg']
    with FaultProxy(ironic.port, answer=playing_ironic_api('1.92')) as proxy:
        old = run_module('baremetal_node', name=node['name'], endpoint=proxy.endpoint,
                         virtual_media=[{'device_type': 'cdrom', 'image_url': 'http://127.0.0.1:9/boot.iso'}])
    assert old['failed'] and 'virtual_media needs Ironic API 1.93 or newer; this server supports up to 1.92' in old['msg']
    assert_no_write(ironic, mark)

# -*- coding: utf-8 -*-
"""Virtual media as baremetal_node declares it (node/virtual_media.py): the declaration's checks, the comparison with
what the BMC shows, the plan, and the waits after Ironic's background attach and detach. Against sushy-tools:
tests/integration/test_node_wiring.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.writes import NodeWrites
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node import virtual_media
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.record import declared_record, required_features

URL = 'http://reader:Zq-secret@127.0.0.1:8080/boot.iso'
NODE = '98142817-1a5c-40c7-b7e8-c53c428f2a15'
CD = {'media_types': ['CD', 'DVD'], 'inserted': False, 'image': ''}
FLOPPY = {'media_types': ['Floppy'], 'inserted': False, 'image': ''}


def writes():
    """The node's writes, as the writer makes them (no lock in these tests)."""
    return NodeWrites('n1', 'active', 600)


def media(**given):
    return virtual_media.declared_media({'virtual_media': [dict(given, device_type=given.get('device_type', 'cdrom'))]})


def inserted(entry, image):
    return dict(entry, inserted=True, image=image)


def test_a_declaration_takes_the_defaults_and_needs_api_1_93():
    assert media(image_url=URL) == [{'device_type': 'cdrom', 'state': 'present', 'image_url': URL,
                                     'download_source': 'http'}]
    assert required_features(declared_record({'virtual_media': [{'device_type': 'cdrom', 'image_url': URL}]})) == [
        'virtual_media']


def test_bad_media_are_refused_with_every_problem_and_a_url_password_masked():
    declared = virtual_media.declared_media({'virtual_media': [
        {'device_type': 'cdrom', 'image_url': 'ftp://user:Zq-secret@127.0.0.1/boot.iso'},
        {'device_type': 'cdrom', 'state': 'absent'},
        {'device_type': 'floppy'},
        {'device_type': 'disk', 'image_url': 'nfs://127.0.0.1/boot.img', 'download_source': 'local'}]})
    errors = ' '.join(virtual_media.declaration_errors(declared))
    assert 'virtual_media[0].image_url ftp://user:********@127.0.0.1/boot.iso is not a URL Ironic attaches' in errors
    assert 'virtual_media[1].device_type cdrom is listed twice' in errors
    assert 'virtual_media[2] needs image_url' in errors
    assert 'virtual_media[3].image_url is a nfs URL, which the conductor cannot download' in errors
    assert 'Zq-secret' not in errors


COPY = 'http://127.0.0.1:8080/redfish/cdrom-%s.iso' % NODE  # Ironic's copy for the device (download_source local)
MASKED = 'http://reader:********@127.0.0.1:8080/boot.iso'
OLD = 'http://127.0.0.1:8080/old.iso'


@pytest.mark.parametrize('image, recorded, same', [
    (URL, {}, True),
    (COPY, {'cdrom': MASKED}, True),  # Ironic's copy of the image the last attach recorded
    (COPY, {'cdrom': OLD}, False),  # a copy of another image
    (COPY, {}, False),  # a copy of an image nobody recorded
    ('http://127.0.0.1:8080/redfish/floppy-%s.img' % NODE, {'cdrom': MASKED}, False),
    ('http://127.0.0.1:8080/other.iso', {'cdrom': MASKED}, False),
    (None, {'cdrom': MASKED}, False),
])
def test_the_declared_image_is_its_url_or_ironics_copy_of_the_image_recorded_as_it(image, recorded, same):
    assert virtual_media.shows(media(image_url=URL)[0], image, NODE, recorded) is same


def test_a_new_url_replaces_ironics_copy_of_the_old_one_and_the_plan_records_it_masked():
    plan = virtual_media.MediaPlan(media(image_url=URL), [inserted(CD, COPY)], NODE, {'cdrom': OLD})
    assert [medium['image_url'] for medium in plan.attach] == [URL]
    assert (plan.before, plan.after, plan.record) == ({'cdrom': OLD}, {'cdrom': URL}, {'cdrom': MASKED})
    same = virtual_media.MediaPlan(media(image_url=URL), [inserted(CD, COPY)], NODE, {'cdrom': MASKED})
    assert not same and same.before == same.after == {'cdrom': MASKED}


def test_the_record_is_read_from_the_nodes_extra():
    assert virtual_media.recorded_media({'extra': {virtual_media.RECORD_KEY: {'cdrom': MASKED}}}) == {'cdrom': MASKED}
    assert virtual_media.recorded_media({'extra': {}}) == virtual_media.recorded_media(None) == {}


def test_the_plan_attaches_what_is_not_inserted_and_detaches_what_is_declared_absent():
    declared = virtual_media.declared_media({'virtual_media': [
        {'device_type': 'cdrom', 'image_url': URL}, {'device_type': 'floppy', 'state': 'absent'}]})
    plan = virtual_media.MediaPlan(declared, [CD, inserted(FLOPPY, 'http://127.0.0.1/f.img')], NODE, {})
    assert [medium['device_type'] for medium in plan.attach] == ['cdrom'] and plan.detach == ['floppy']
    assert plan.before == {'cdrom': None, 'floppy': 'http://127.0.0.1/f.img'}
    assert plan.after == {'cdrom': URL, 'floppy': None}
    assert not virtual_media.MediaPlan(declared, [inserted(CD, URL), FLOPPY], NODE, {})


def test_another_image_is_replaced_and_a_device_the_bmc_lacks_is_a_problem():
    plan = virtual_media.MediaPlan(media(image_url=URL), [inserted(CD, 'http://127.0.0.1/old.iso')], NODE, {})
    assert plan.attach and plan.problems([]) == []
    lacking = virtual_media.MediaPlan(media(device_type='disk', image_url=URL), [CD, FLOPPY], NODE, {})
    assert lacking.problems([CD, FLOPPY]) == [
        'the BMC offers no virtual media device for disk (its media types: CD, DVD, Floppy); leave it out of '
        'virtual_media.']


def test_a_node_being_created_has_nothing_inserted():
    plan = virtual_media.MediaPlan(media(image_url=URL), None, None, {})
    assert plan.attach and plan.problems(None) == []


class Client(object):
    """Ironic attaching in the background: the BMC shows the image after `after` reads; or last_error says why not."""

    def __init__(self, after=2, last_error=None):
        self.after, self.last_error, self.reads, self.writes, self.patches = after, last_error, 0, [], []

    def require(self, feature, version):
        pass

    def request(self, method, path, body=None, params=None, retry_busy=True):
        if method != 'GET':
            self.writes.append((method, path, body, params))
            return None
        self.reads += 1
        shown = self.reads > self.after
        if self.writes[-1][0] == 'DELETE':
            return [dict(CD, inserted=not shown, image=URL)]
        return [inserted(CD, URL) if shown else CD]

    def update_node(self, uuid, patch, retry_busy=True):
        self.patches.append(patch)

    def get_node(self, uuid, fields):
        return {'last_error': self.last_error}


def test_an_attach_is_read_until_the_bmc_shows_it(monkeypatch):
    monkeypatch.setattr(virtual_media.Wait, 'pause', lambda self: True)
    client = Client(after=2)
    shown = virtual_media.apply_plan(client, virtual_media.MediaPlan(media(image_url=URL), [CD], NODE, {}), NODE, 600, writes())
    assert client.writes == [('POST', '/nodes/%s/vmedia' % NODE,
                              {'device_type': 'cdrom', 'image_url': URL, 'image_download_source': 'http'}, None)]
    assert client.patches == [[{'op': 'add', 'path': '/extra/' + virtual_media.RECORD_KEY,
                                'value': {'cdrom': MASKED}}]]
    assert client.reads == 3 and virtual_media.media_view(shown, ['cdrom']) == {
        'cdrom': 'http://reader:********@127.0.0.1:8080/boot.iso'}


def test_a_detach_is_read_until_the_device_is_empty(monkeypatch):
    monkeypatch.setattr(virtual_media.Wait, 'pause', lambda self: True)
    client = Client(after=1)
    plan = virtual_media.MediaPlan(media(state='absent'), [inserted(CD, COPY)], NODE, {'cdrom': MASKED})
    virtual_media.apply_plan(client, plan, NODE, 600, writes())
    assert client.writes == [('DELETE', '/nodes/%s/vmedia' % NODE, None, {'device_types': 'cdrom'})]
    assert client.patches == [[{'op': 'remove', 'path': '/extra/' + virtual_media.RECORD_KEY}]]


def test_a_failure_ironic_reports_fails_with_its_last_error_masked(monkeypatch):
    monkeypatch.setattr(virtual_media.Wait, 'pause', lambda self: True)
    client = Client(after=99, last_error='Could not attach device cdrom: %s unreachable' % URL)
    with pytest.raises(virtual_media.VirtualMediaError) as caught:
        virtual_media.apply_plan(client, virtual_media.MediaPlan(media(image_url=URL), [CD], NODE, {}), NODE, 600, writes())
    assert 'Ironic failed attaching cdrom: Could not attach device cdrom' in str(caught.value)
    assert 'Zq-secret' not in str(caught.value)


def test_an_attach_never_shown_ends_at_the_deadline(monkeypatch):
    monkeypatch.setattr(virtual_media.Wait, 'pause', lambda self: False)
    with pytest.raises(virtual_media.VirtualMediaError, match='attaching cdrom took more than 5 s'):
        virtual_media.apply_plan(Client(after=99), virtual_media.MediaPlan(media(image_url=URL), [CD], NODE, {}), NODE,
                                 5, writes())

# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Virtual media declared on a node: an image inserted in a virtual device of its BMC, or none (state absent).

A device the task does not name is left alone (Ironic itself inserts images to boot a node by virtual media). What
the BMC shows is read once (API 1.93) and compared: with image_download_source http the BMC reads the image from its
URL, which it shows; with local Ironic copies the image and the BMC shows Ironic's copy, named for the device and the
node only (Ironic 39 copies whatever the source: its conductor is never told it). Which image that copy is of, the
BMC cannot say: so every attach records its URL, password masked, in the node's extra (RECORD_KEY), and a copy counts
as the declared image only when the record names it. Ironic attaches and detaches in the background: each is followed
by reads until the BMC shows it, or the node's last_error says why not.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic import wiring as api
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.secrets import masked, masked_text
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.wait import Wait
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.media_types import MEDIA_TYPES

# What Ironic takes as an image URL, and those its conductor cannot download itself (download_source local).
URL_SCHEMES = ('http', 'https', 'nfs', 'cifs', 'smb')
REMOTE_ONLY_SCHEMES = ('nfs', 'cifs', 'smb')

# The key of the node's extra that records the image each device was given ({device type: URL, password masked}).
RECORD_KEY = 'baremetal_lifecycle_virtual_media'


class VirtualMediaError(BaremetalError):
    """Ironic could not attach or detach an image, or the BMC has no such device."""


def declared_media(params):
    """The declared devices (node/wiring.py declared_wiring calls it for declared virtual_media only)."""
    return [dict(device_type=medium['device_type'], state=medium.get('state') or 'present',
                 image_url=medium.get('image_url'), download_source=medium.get('download_source') or 'http')
            for medium in params['virtual_media']]


def declaration_errors(media):
    errors, seen = [], set()
    for index, medium in enumerate(media or ()):
        option = 'virtual_media[%d]' % index
        if medium['device_type'] in seen:
            errors.append('%s.device_type %s is listed twice; a device holds one image. Remove the duplicate.'
                          % (option, medium['device_type']))
        seen.add(medium['device_type'])
        if medium['state'] == 'absent':
            continue
        url = medium['image_url']
        scheme = url.split('://', 1)[0].lower() if url and '://' in url else None
        if not url:
            errors.append('%s needs image_url, the image to insert (state: absent ejects the device instead).' % option)
        elif scheme not in URL_SCHEMES:
            errors.append('%s.image_url %s is not a URL Ironic attaches: use one of %s.'
                          % (option, masked_text(url), ', '.join('%s://' % name for name in URL_SCHEMES)))
        elif medium['download_source'] == 'local' and scheme in REMOTE_ONLY_SCHEMES:
            errors.append('%s.image_url is a %s URL, which the conductor cannot download: set download_source: http.'
                          % (option, scheme))
    return errors


def published_name(device_type, node_uuid):
    """The name Ironic gives its copy of an image it serves itself (download_source local)."""
    return '%s-%s.%s' % (device_type, node_uuid, 'iso' if device_type == 'cdrom' else 'img')


def inserted_image(media, device_type):
    """The image inserted in the device (None: nothing), and whether the BMC has such a device at all."""
    devices = [entry for entry in media if set(entry.get('media_types') or ()) & set(MEDIA_TYPES[device_type])]
    images = [entry.get('image') for entry in devices if entry.get('inserted') and entry.get('image')]
    return (images[0] if images else None), bool(devices)


def is_copy(image, device_type, node_uuid):
    """Whether the inserted image is Ironic's copy for the device (download_source local; and whatever the source on
    Ironic 39, whose conductor is never told the source and always copies)."""
    return image is not None and image.rstrip('/').rsplit('/', 1)[-1] == published_name(device_type, node_uuid)


def recorded_media(node):
    """{device type: the URL recorded at its last attach, password masked} of the node (None: a node to create)."""
    return dict(((node or {}).get('extra') or {}).get(RECORD_KEY) or {})


def shows(medium, image, node_uuid, recorded):
    """Whether the inserted image is the declared one: its URL, or Ironic's copy of an image recorded as that URL."""
    if image is None:
        return False
    return image == medium['image_url'] or (is_copy(image, medium['device_type'], node_uuid)
                                            and recorded.get(medium['device_type']) == masked_text(medium['image_url']))


class MediaPlan(object):
    """What makes the node's virtual media as declared (pure): media is what Ironic read from the BMC (None for a
    node being created, which has nothing inserted), recorded what the node's extra records of its last attaches.
    Before and after show Ironic's copy as the URL recorded for it."""

    def __init__(self, declared, media, node_uuid, recorded):
        self.attach, self.detach, self.missing = [], [], []
        self.before, self.after = {}, {}
        self.recorded, self.record = recorded, dict(recorded)  # the record as read, and as the plan leaves it
        for medium in declared:
            device = medium['device_type']
            image, offered = inserted_image(media, device) if media is not None else (None, True)
            if not offered:
                self.missing.append(device)
            self.before[device] = recorded.get(device, image) if is_copy(image, device, node_uuid) else image
            if medium['state'] == 'absent':
                self.after[device] = None
                self.record.pop(device, None)
                if image is not None:
                    self.detach.append(device)
            elif shows(medium, image, node_uuid, recorded):
                self.after[device] = self.before[device]
            else:
                self.after[device] = medium['image_url']
                self.record[device] = masked_text(medium['image_url'])
                self.attach.append(medium)

    def __bool__(self):
        return bool(self.attach or self.detach)

    def problems(self, offered):
        """The devices the BMC does not offer, naming those it does (offered: the media read)."""
        if not self.missing:
            return []
        kinds = sorted(set(kind for entry in offered or () for kind in entry.get('media_types') or ()))
        return ['the BMC offers no virtual media device for %s (its media types: %s); leave it out of virtual_media.'
                % (', '.join(self.missing), ', '.join(kinds) or 'none')]


def media_view(media, devices):
    """The declared devices as results show them: {device type: the image inserted, or None}, URL passwords masked."""
    return masked(dict((device, inserted_image(media, device)[0]) for device in devices))


def apply_plan(client, plan, node_uuid, timeout, writes):
    """Detach, then attach, each followed by reads until the BMC shows it, each within timeout seconds (the task's),
    then write the record of what is attached; each request sent by writes (the node's engine.writes.NodeWrites).
    Returns the media as last read."""
    media = None
    for device in plan.detach:
        writes.send('detaching its %s' % device, api.detach_virtual_media, client, node_uuid, device)
        media = _wait(client, node_uuid, timeout, 'detaching %s' % device,
                      lambda read, device=device: inserted_image(read, device)[0] is None)
    for medium in plan.attach:
        writes.send('attaching its %s' % medium['device_type'], api.attach_virtual_media, client, node_uuid,
                    medium['device_type'], medium['image_url'], medium['download_source'])
        media = _wait(client, node_uuid, timeout, 'attaching %s' % medium['device_type'],
                      lambda read, medium=medium: shows(medium, inserted_image(read, medium['device_type'])[0],
                                                        node_uuid, plan.record))
    write_record(client, plan, node_uuid, writes)
    return media


def write_record(client, plan, node_uuid, writes):
    """Record in the node's extra the image each device was given (the key goes when no device has one)."""
    if plan.record == plan.recorded:
        return
    path = '/extra/%s' % RECORD_KEY
    operation = {'op': 'add', 'path': path, 'value': plan.record} if plan.record else {'op': 'remove', 'path': path}
    writes.send('recording its virtual media in extra', client.update_node, node_uuid, [operation])


def _wait(client, node_uuid, timeout, doing, done):
    """Read until done(media); a last_error on the node (which the request cleared) says Ironic failed."""
    wait = Wait(timeout)
    while True:
        media = api.virtual_media(client, node_uuid)
        if done(media):
            return media
        last_error = client.get_node(node_uuid, ('last_error',)).get('last_error')
        if last_error:
            raise VirtualMediaError('Ironic failed %s: %s' % (doing, masked_text(last_error)))
        if not wait.pause():
            raise VirtualMediaError('%s took more than %d s: the BMC still shows %s. Look at the BMC, then rerun.'
                                    % (doing, timeout, masked(media)))

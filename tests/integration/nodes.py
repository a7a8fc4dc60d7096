# -*- coding: utf-8 -*-
"""Put real Ironic nodes into a given provision state with raw REST, independently of the modules under test."""

import itertools
import time

CLOSED_LOOPBACK_URL = 'http://127.0.0.1:9/image.raw'  # port 9 (discard) is closed here: downloads fail at once
# A deploy kernel and ramdisk on that closed port: driver_info that validates, and is never downloaded.
KERNEL = 'http://127.0.0.1:9/deploy.kernel'
RAMDISK = 'http://127.0.0.1:9/deploy.ramdisk'
_names = itertools.count(1)


class RawIronic(object):
    """Node set-up through the session Ironic's own raw REST helper (``ironic.api``)."""

    def __init__(self, ironic):
        self.api = ironic.api

    def node(self, ident):
        return self.api('GET', '/nodes/%s' % ident)

    def failure_reason(self, ident):
        """Ironic's own reason for failing the node, read independently of the collection: its last_error, else the
        newest error its history keeps (the power-state sync of Ironic 31.0 and newer clears last_error once the
        history keeps it, so a test that reads a failed node late finds it there)."""
        last_error = self.node(ident)['last_error']
        if last_error:
            return last_error
        events = self.api('GET', '/nodes/%s/history?detail=true' % ident)['history']
        errors = [event['event'] for event in events if event['severity'] == 'ERROR']
        return errors[-1].strip().rstrip('.') if errors else None

    def create(self, prefix='node', **fields):
        name = '%s-%d-%d' % (prefix, int(time.time() * 1000) % 100000, next(_names))
        fields.setdefault('driver', 'fake-hardware')
        return self.api('POST', '/nodes', dict(fields, name=name))

    def patch(self, ident, **fields):
        return self.api('PATCH', '/nodes/%s' % ident,
                        [{'op': 'add', 'path': '/%s' % key, 'value': value} for key, value in fields.items()])

    def verb(self, ident, target, **arguments):
        self.api('PUT', '/nodes/%s/states/provision' % ident, dict(arguments, target=target))
        return self.settle(ident)

    def settle(self, ident, seconds=60):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            node = self.node(ident)
            state = node['provision_state']
            if node['target_provision_state'] is None or state.endswith('failed') or state.endswith('hold'):
                return node
            time.sleep(0.05)
        raise AssertionError('node %s did not settle: %s' % (ident, node['provision_state']))

    def node_in(self, state):
        """A new fake-hardware node resting in ``state``, reached the way an operator would reach it."""
        if state == 'adopt failed':
            # ramdisk deploy validates the boot interface on adoption; pxe without ports fails for real.
            node = self.create(boot_interface='pxe', deploy_interface='ramdisk')
            self.verb(node['uuid'], 'manage')
            return self._expect(self.verb(node['uuid'], 'adopt'), state)
        node = self.create()
        uuid = node['uuid']
        if state == 'enroll':
            return node
        self.verb(uuid, 'manage')
        if state == 'clean failed':
            return self._expect(self.verb(uuid, 'clean', clean_steps=[{'interface': 'deploy', 'step': 'no_such_step'}]),
                                state)
        if state == 'manageable':
            return self.node(uuid)
        self.verb(uuid, 'provide')
        if state == 'deploy failed':
            self.patch(uuid, deploy_interface='direct', instance_info={
                'image_source': CLOSED_LOOPBACK_URL, 'image_checksum': '0' * 32, 'image_disk_format': 'raw'})
            return self._expect(self.verb(uuid, 'active'), state)
        if state == 'available':
            return self.node(uuid)
        self.verb(uuid, 'active')
        if state == 'active':
            return self._expect(self.node(uuid), state)
        if state == 'rescue':
            return self._expect(self.verb(uuid, 'rescue', rescue_password='rescue-secret'), state)
        raise ValueError(state)

    def repair(self, ident):
        """What an operator does after reading last_error: put back interfaces that work.

        Ironic changes interfaces of a node in a failure state only while it is in maintenance."""
        self.api('PUT', '/nodes/%s/maintenance' % ident, {'reason': 'fixing interfaces'})
        self.api('PATCH', '/nodes/%s' % ident, [
            {'op': 'replace', 'path': '/deploy_interface', 'value': 'fake'},
            {'op': 'replace', 'path': '/boot_interface', 'value': 'fake'}])
        self.api('DELETE', '/nodes/%s/maintenance' % ident)

    @staticmethod
    def _expect(node, state):
        assert node['provision_state'] == state, (node['provision_state'], node['last_error'])
        return node

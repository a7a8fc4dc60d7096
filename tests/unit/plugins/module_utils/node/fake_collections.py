# -*- coding: utf-8 -*-
"""One of Ironic's named collections in memory, behind the client's real calls (ironic/resources.py Collection)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.capabilities import too_old
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.resources import CollectionEndpoints
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import IronicError, NotFound


class FakeCollection(CollectionEndpoints):
    """Answers the requests of /v1/<collection> as Ironic does, and records every write in ``writes``: ('create',
    body), ('update', ident, patch), ('delete', ident) or ('traits', ident, traits).

    ``new(n)`` is the fields Ironic gives the n-th member created; ``shown(member)`` how Ironic shows a member;
    ``reads`` the paths read."""

    def __init__(self, version, members, new, shown=dict):
        self.version = version
        self.members = dict((member['uuid'], dict(member)) for member in members)
        self.new = new
        self.shown = shown
        self.writes = []
        self.reads = []

    def require(self, feature, version):
        if self.version < version:
            raise IronicError(too_old(feature, version, self.version))

    def request(self, method, path, body=None, params=None):
        ident = (path.split('/') + [None])[2]
        if method == 'GET':
            self.reads.append(path)
            found = next((member for member in self.members.values() if ident in (member['uuid'], member.get('name'))),
                         None)
            if found is None:
                raise NotFound('%s not found' % ident)
            return self.shown(dict(found))
        if method == 'POST':
            self.writes.append(('create', body))
            created = dict(self.new(len(self.members) + 1), **body)
            self.members[created['uuid']] = created
            return self.shown(dict(created))
        if method == 'DELETE':
            self.writes.append(('delete', ident))
            del self.members[ident]
            return None
        member = self.members[ident]
        if method == 'PUT':  # /runbooks/<ident>/traits
            self.writes.append(('traits', ident, body['traits']))
            member['traits'] = body['traits']
            return None
        self.writes.append(('update', ident, body))
        for operation in body:
            member[operation['path'][1:]] = operation['value']
        return self.shown(dict(member))

    def pages(self, path, params, key):
        self.reads.append(path)
        yield [self.shown(dict(member)) for member in self.members.values()], True

# -*- coding: utf-8 -*-
"""A client base whose Ironic has every API version: no version check refuses anything. A listing pages as the real
client pages it, over the subclass's own request."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import Transport


class EveryVersion(object):

    pages = Transport.pages

    def require(self, feature, version):
        pass

    def supports(self, version):
        return True

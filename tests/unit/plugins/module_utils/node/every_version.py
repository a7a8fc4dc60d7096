# -*- coding: utf-8 -*-
"""A client base whose Ironic has every API version: no version check refuses anything."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class EveryVersion(object):

    def require(self, feature, version):
        pass

    def supports(self, version):
        return True

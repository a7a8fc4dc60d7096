# -*- coding: utf-8 -*-
"""A task's connection options as a module gets them, for the unit and integration tests of the connection."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


def params(api_timeout=10, **options):
    """The connection options as a module gets them (every option present, unset ones None)."""
    values = dict.fromkeys(('cloud', 'auth_type', 'auth', 'endpoint', 'region_name', 'interface', 'validate_certs',
                            'ca_cert', 'client_cert', 'client_key'))
    values['api_timeout'] = api_timeout
    values.update(options)
    return values

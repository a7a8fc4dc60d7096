# -*- coding: utf-8 -*-
"""A task's connection options and a clouds.yaml, for the tests of the connection and of its configuration."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import yaml


def params(**options):
    """The connection options as a module gets them (every option present, unset ones None)."""
    values = dict.fromkeys(('cloud', 'auth_type', 'auth', 'endpoint', 'region_name', 'interface', 'validate_certs',
                            'ca_cert', 'client_cert', 'client_key'))
    values['api_timeout'] = 10
    values.update(options)
    return values


def write_clouds(tmp_path, monkeypatch, clouds):
    path = tmp_path / 'clouds.yaml'
    path.write_text(yaml.safe_dump({'clouds': clouds}), encoding='utf-8')
    monkeypatch.setenv('OS_CLIENT_CONFIG_FILE', str(path))
    return path

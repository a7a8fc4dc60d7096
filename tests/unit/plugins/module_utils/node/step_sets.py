# -*- coding: utf-8 -*-
"""What the tests of deploy templates and runbooks (node/deploy_template.py, node/runbook.py) check alike: both
declare a set of steps in one of Ironic's named collections, refuse a bad declaration before any write, compare and
show a secret step argument only masked, and delete the set once on state=absent."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import collections

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError

# One kind of step set as its test file builds it: module, the module under test (declared_fields, changed_fields);
# ensure(client, params, check_mode), its writer; member, the result's key for the one set; params(**fields) a
# declaration, stored(**fields) the set as Ironic returns it, fake_ironic(members) an Ironic holding those sets.
StepSet = collections.namedtuple('StepSet', 'module ensure member params stored fake_ironic')


def refused_before_any_write(kind, declared, words):
    """The declaration is refused with an error holding words, and nothing is written."""
    client = kind.fake_ironic()
    with pytest.raises(BaremetalError) as caught:
        kind.ensure(client, declared, check_mode=False)
    assert words in str(caught.value)
    assert client.writes == []


def step_argument_secrets_compare_as_ironic_shows_them_and_never_show(kind, secret_step):
    """A step whose args hold a secret (named like a password) compares equal with Ironic's masked copy; one whose
    args hold a signed URL (Ironic shows it whole) differs from Ironic's copy when only its signature is new, so the
    task writes it (an expired signature would otherwise stay). Results and diffs show none of them."""
    masked = dict(secret_step, args=dict.fromkeys(secret_step['args'], '******'))
    current = kind.stored(steps=[masked])
    assert kind.module.changed_fields(current, kind.module.declared_fields(kind.params(steps=[secret_step]))) == []
    result = kind.ensure(kind.fake_ironic(), kind.params(steps=[secret_step]), check_mode=False)
    for value in secret_step['args'].values():
        assert value not in str(result[kind.member]) and value not in str(result['diff'])
    url = 'http://127.0.0.1:8080/v1/AUTH_x/fw/bmc.bin?temp_url_sig=%s&temp_url_expires=1'
    signed = dict(secret_step, args={'url': url % 'new-signature'})
    current = kind.stored(steps=[dict(secret_step, args={'url': url % 'old-signature'})])
    assert kind.module.changed_fields(current, kind.module.declared_fields(kind.params(steps=[signed]))) == ['steps']
    result = kind.ensure(kind.fake_ironic([current]), kind.params(steps=[signed]), check_mode=False)
    assert result['changed'] is True
    for signature in ('old-signature', 'new-signature'):
        assert signature not in str(result[kind.member]) and signature not in str(result['diff'])


def absent_deletes_once(kind):
    """state=absent: check mode writes nothing; then one delete of the stored set, the result's member None and
    the diff after empty; a rerun changes nothing."""
    stored = kind.stored()
    client = kind.fake_ironic([stored])
    assert kind.ensure(client, kind.params(state='absent'), check_mode=True)['changed'] is True
    assert client.writes == []
    result = kind.ensure(client, kind.params(state='absent', steps=None), check_mode=False)
    assert result['changed'] is True and result[kind.member] is None and client.writes == [('delete', stored['uuid'])]
    assert result['diff']['after'] == {} and result['diff']['before']['name'] == stored['name']
    assert kind.ensure(client, kind.params(state='absent'), check_mode=False)['changed'] is False

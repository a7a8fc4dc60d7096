# -*- coding: utf-8 -*-
"""What the tests of deploy templates and runbooks share: both are sets of steps named after a custom trait, which
baremetal_deploy_template and baremetal_runbook declare and state=absent deletes."""

import uuid


def unique_trait(prefix):
    """A custom trait no other test uses, for a runbook or a deploy template named after it."""
    return 'CUSTOM_%s_%s' % (prefix, uuid.uuid4().hex[:8].upper())


def absent_deletes_once(ironic, run_module, module, name, member, path):
    """state=absent of module deletes the set named name: check mode shows the change and writes nothing, then one
    DELETE, the result's member is None and Ironic's path (/runbooks/<name>...) answers 404; a rerun changes
    nothing."""
    mark = ironic.log_mark()
    assert run_module(module, name=name, state='absent', check=True)['changed'] is True
    assert ironic.write_requests_since(mark) == []
    deleted = run_module(module, name=name, state='absent')
    assert deleted['changed'] is True and deleted[member] is None
    assert [request.method for request in ironic.write_requests_since(mark)] == ['DELETE']
    assert ironic.api('GET', path, expect=(404,))
    assert run_module(module, name=name, state='absent')['changed'] is False

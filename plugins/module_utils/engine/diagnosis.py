# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the scheduler tells of a node that did not get where the task declared: the messages, in one place.

A failed step, a refused verb, a lost answer, a stranded node, a node a dead conductor left (and why no other takes
it over), back-pressure, a request or write a lock kept out, and the timeouts with what Ironic last said of the node.
Each message names the node, where it rests and what to do about it. Also how Ironic records a BMC that refused the
credentials it holds (read by node/bmc_check.py).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.secrets import masked_text
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.job import READY, WAITING
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.result import node_label
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.writes import held_off
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.waiter import (
    UNREACHABLE_GRACE, WAIT_STATES, ironics_words)
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.capabilities import DEPLOY_WAIT_ABORT_VERSION, version_string
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.transport import IronicError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.conductors import unproven_death

# How many of a node's latest history events a timeout reports.
HISTORY_EVENTS = 5

# Why no other conductor takes over a node a dead one left (waiter.no_takeover's answers).
NO_TAKEOVER = {
    'state': "No other conductor takes over a node in '%(state)s'",
    'port': ("No other conductor takes over the nodes of a conductor registered as HOST:PORT ([json_rpc]port "
             "other than 8089): it reserves them as HOST"),
    'group': ("No live conductor serves conductor group '%(group)s' (Ironic takes a node over only by a live "
              "conductor of its group)"),
}


def no_takeover_words(reason, node):
    """waiter.no_takeover's reason for the node, in words."""
    return NO_TAKEOVER[reason] % {'state': node['provision_state'], 'group': node.get('conductor_group') or ''}


def describe_failure(client, step, node):
    """Why a step ended where it did not lead, in Ironic's own words when it has any (waiter.ironics_words)."""
    reason = masked_text(ironics_words(client, node))
    detail = (' Ironic says: %s' % reason) if reason else ''
    what = "'%s' (%s)" % (step.verb, step.action.name) if step.action else "'%s'" % step.verb
    return ("node %s: %s from '%s' ended in '%s' instead of '%s'.%s" % (
        node_label(node), what, step.source, node['provision_state'], step.landing, detail))


def ended_by_takeover(client, job, step, node, takeover):
    """Why a job fails that Ironic's takeover from a dead conductor ended (its error: why the plan from there
    failed)."""
    return '%s Ironic ended the step when it took the node over from conductor %s. %s' % (
        describe_failure(client, step, node), takeover['hostname'], job.error[len('node %s: ' % job.label):])


def where(node):
    target = node.get('target_provision_state')
    return "'%s'%s" % (node.get('provision_state'), (" (target '%s')" % target) if target else '')


def awaited(conductor):
    return ("waiting for Ironic to take it over from conductor %s (down since %s)"
            % (conductor['hostname'], conductor.get('updated_at') or 'an unknown time'))


def restart_advice(why, dead):
    """What to restart for a node no request moves: the dead conductors (IronicClient.conductors values) by name,
    after why no other conductor moves it."""
    if not dead:
        return ("Restart the ironic-conductor: on start-up it fails up to [conductor]periodic_max_workers orphaned "
                "nodes per state (raise it to cover them all), and a rerun of this task then recovers them.")
    names = ' or '.join('%s (down since %s)' % (c['hostname'], c.get('updated_at') or 'an unknown time')
                        for c in dead)
    return ("%s: restart the ironic-conductor %s; on start-up it fails the nodes it left there, and a rerun of "
            "this task then recovers them." % (why, names))


def abandoned(node, dead, reason):
    """A node a dead conductor left where no other takes it over."""
    return "left in '%s' by conductor %s, which Ironic reports down since %s. %s" % (
        node['provision_state'], dead['hostname'], dead.get('updated_at') or 'an unknown time',
        restart_advice(no_takeover_words(reason, node), [dead]))


def stranded(state, quiet):
    return ("stranded in '%s': no conductor has held it (no reservation) and it made no progress for %s s, "
            "so nothing will move it again (its conductor probably restarted in the middle of the step)."
            % (state, quiet))


def no_way_out(state, verb, dead):
    """Advice for a stranded node the task does not take out: verb is Ironic's way out (None: there is none, and
    dead the dead conductors by name)."""
    if verb:
        return "Run the task without check mode: it takes the node out with '%s'." % verb
    return "Ironic takes no request that moves a node out of '%s'. %s" % (
        state, restart_advice(no_takeover_words('state', {'provision_state': state}), dead))


def refused(step, plan, exc, node):
    """Which step Ironic refused, where the node rests (node: as read again, None when it could not be) and why
    Ironic may have refused it."""
    position = ''
    if step in plan:
        position = ' (step %d of %d)' % (plan.index(step) + 1, len(plan))
    message = "Ironic refused '%s'%s from '%s': %s" % (step.verb, position, step.source, exc)
    if node is not None:
        message += ' The node rests in %s.' % where(node)
        if node.get('maintenance'):
            message += (" It is in maintenance (reason: %s), set since the task planned it; clear it with "
                        "baremetal.lifecycle.baremetal_maintenance maintenance: false once the reason is dealt "
                        "with, then run the task again." % (node.get('maintenance_reason') or 'none given'))
    return message


# Ironic's words for a BMC that refused the credentials it holds, as it records them on the node: the last_error of
# a failed verify (manage from enroll) or the maintenance_reason of a failed power sync. Redfish (sushy's HTTP error):
# "... Error: HTTP GET https://bmc/redfish/v1/Systems/1 returned code 401. ...". ipmitool: "Failed to get power
# state for node <uuid>. Error: IPMI call failed: power status." (Ironic keeps the words that tell a refused
# password from a silent BMC only in its log), hence "or does not answer".
CREDENTIALS_REFUSED = ((re.compile(r'returned code 401\b'), 'refused the credentials Ironic holds'),
                       (re.compile(r'IPMI call failed'), 'refused the credentials Ironic holds, or does not answer'))


def credentials_refused(node):
    """How the node's BMC refused the credentials Ironic holds, as Ironic recorded it ((what, Ironic's text)), or
    None: a node in enroll by its last_error, a node in maintenance by its reason."""
    texts = []
    if node.get('provision_state') == 'enroll':
        texts.append(node.get('last_error'))
    if node.get('maintenance'):
        texts.append(node.get('maintenance_reason'))
    for text in texts:
        for pattern, what in CREDENTIALS_REFUSED:
            if text and pattern.search(text):
                return what, text
    return None


def kept_secrets_refused(label, keys, refusal):
    """A warning for a node whose BMC refused its stored credentials, when the task gives secrets update_secrets:
    on_create keeps (keys: their names; the values are never shown)."""
    what, text = refusal
    # Not "update_secrets: always": masked_text takes that shape for a secret and its value.
    return ("node %s: its BMC %s (Ironic says: %s), and update_secrets on_create (the default) keeps the stored "
            "driver_info %s, so the value this task gives is not written. If it is the right one, set update_secrets "
            "to always to write it (then back to on_create)." % (label, what, masked_text(text).rstrip('.'), ', '.join(keys)))


def answer_lost_unread(step, exc):
    return "the answer to '%s' was lost and the node could not be read again: %s" % (step.verb, exc)


def answer_lost_twice(step):
    return ("the answer to '%s' was lost twice and the node is still in '%s'; look at the conductor log and run the "
            "task again." % (step.verb, step.source))


def unreachable(exc):
    return 'Ironic stayed unreachable for %d s while the task waited: %s' % (UNREACHABLE_GRACE, exc)


def deleted(node):
    return 'deleted while the task waited on it (last seen in %s).' % where(node)


def history(client, uuid):
    try:
        events = client.node_history(uuid, HISTORY_EVENTS)
    except IronicError:
        return ''
    if not events:
        return ''
    return ' Latest events: %s.' % '; '.join(
        '%s %s' % (event.get('created_at'), masked_text((event.get('event') or '').strip())) for event in events)


def not_abortable(client, state):
    """Why Ironic would not abort a node in ``state`` (a sentence), or None when it would."""
    if state not in WAIT_STATES:
        return 'It is not in a wait state Ironic can abort'
    if state == 'wait call-back' and not client.supports(DEPLOY_WAIT_ABORT_VERSION):
        return ("Aborting '%s' needs Ironic API %s or newer, and this server is %s"
                % (state, version_string(DEPLOY_WAIT_ABORT_VERSION), client.describe_server()))
    return None


def aborted(state):
    return " It was aborted (abort_on_timeout), out of '%s'; Ironic puts it in a failed state." % state


def kept_locked(label, request, timeout, locked):
    """Why a request for the node was never taken: a conductor held the node's lock (transport.Locked) until the
    timeout passed."""
    return held_off(label, "'%s' was never started" % request, locked, timeout)


def timed_out(client, job, timeout, concurrency, busy):
    """Why a job was not done when the timeout passed; busy is Ironic's latest Busy answer (None: none)."""
    waiting = (' while %s' % awaited(job.takeover)) if job.takeover is not None else ''
    doubt = unproven_death(job.holder)
    if job.stage == READY and job.locked is not None:
        return kept_locked(job.label, job.remaining[0].verb, timeout, job.locked)
    if job.stage == READY and not job.started and busy is not None:
        return ("node %s: not started: the timeout (%d s) passed while Ironic took no more nodes at once (its latest "
                "answer: %s). Raise timeout, or Ironic's limits (its [conductor] max_concurrent_clean, "
                "max_concurrent_deploy and workers_pool_size)." % (job.label, timeout, busy))
    if job.stage == READY and not job.started:
        return ("node %s: not started: the timeout (%d s) passed while it waited for one of the %d moving slots "
                "(concurrency). Raise concurrency or timeout." % (job.label, timeout, concurrency))
    last = "Ironic's last error: %s.%s%s" % (masked_text(job.node.get('last_error')) or 'none', history(client, job.uuid),
                                             doubt)
    if job.stage == READY or (job.stage == WAITING and not job.started):
        return ("node %s: not started: it was still %s after %d s%s and must come to rest before it can be planned. "
                "%s Raise timeout if it is just slow." % (job.label, where(job.node), timeout, waiting, last))
    step = job.plan[job.issued - 1] if job.issued else None
    doing = " during '%s' from '%s' (waiting for '%s')" % (step.verb, step.source, step.landing) if step else ''
    return ("node %s: timed out after %d s%s%s: it stopped in %s. %s"
            % (job.label, timeout, doing, waiting, where(job.node), last))


def timeout_advice(client, state):
    """What a node still moving at the timeout can do, when the task did not abort it."""
    if not_abortable(client, state):
        return ' Raise timeout.'
    return ' Raise timeout, or set abort_on_timeout to abort a node left waiting.'

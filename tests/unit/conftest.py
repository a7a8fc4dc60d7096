# -*- coding: utf-8 -*-
"""Unit tests import the collection from the source tree, as ansible_collections.baremetal.lifecycle."""

import hashlib
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _collection_root():
    # One link per checkout: test runs in two checkouts (worktrees, a fresh clone) must not redirect each other.
    checkout = hashlib.sha256(ROOT.encode()).hexdigest()[:12]
    base = os.path.join(tempfile.gettempdir(), 'baremetal-lifecycle-unit-%d-%s' % (os.getuid(), checkout))
    namespace = os.path.join(base, 'ansible_collections', 'baremetal')
    os.makedirs(namespace, exist_ok=True)
    link = os.path.join(namespace, 'lifecycle')
    if os.path.realpath(link) != ROOT:
        # Made aside and renamed over the link: pytest-xdist's workers may do it at the same time.
        made = '%s.%d' % (link, os.getpid())
        os.symlink(ROOT, made)
        os.replace(made, link)
    return base


sys.path.insert(0, _collection_root())

# Property tests judge the code, not the machine: on a loaded 2-core machine Hypothesis' timing checks (a slow
# example, slow data generation) fail tests whose examples all pass. Speed is measured by bench/, never here.
# make test runs the same examples every time (derandomize: a gate that passes or fails the same code the same way);
# pytest --hypothesis-profile=explore draws new ones on every run, to look for what the fixed ones miss.
from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile('untimed', deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
settings.register_profile('explore', settings.get_profile('untimed'), derandomize=False)
settings.load_profile('untimed')

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

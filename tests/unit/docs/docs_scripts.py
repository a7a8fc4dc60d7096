# -*- coding: utf-8 -*-
"""The scripts of docs/, loaded as modules (docs/ is not a package) for the tests of what they generate."""

import importlib.util
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def load(name):
    """docs/<name>.py as a module."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, 'docs', name + '.py'))
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    return script

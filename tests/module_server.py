# -*- coding: utf-8 -*-
"""A process that runs the installed collection's modules as ``python -m <module> ARGS_FILE`` would, each in a
forked child of itself, having imported Ansible's module_utils and every module of the collection once.

Started by tests/conftest.py's ``run_module`` (one per pytest worker) as ``python module_server.py``. A module run
costs a fork instead of a new interpreter importing ansible-core and the collection (about 0.4 CPU-s a run, and the
tests run thousands): the child runs the module's file as ``__main__`` with the arguments file as ``sys.argv[1]``,
in the caller's working directory and environment, its stdout and stderr written to the caller's files, exactly as
the interpreter would run it, only with its imports already done. The server itself imports and never runs a
module, so every child starts from the same state.

Protocol, one JSON line each way on stdin/stdout: the request ``{"module", "args_file", "cwd", "env", "stdout",
"stderr"}``; the answer ``{"pid"}`` once the child is forked (the caller kills it past its timeout), then
``{"rc"}`` once it ended (a negative signal number when a signal ended it). The server ends at the end of stdin.
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import random
import runpy
import select
import signal
import subprocess
import sys
import threading
import time
import traceback

# What a module run imports first; importing it here is what each child is spared.
import ansible.module_utils.basic  # noqa: F401  pylint: disable=unused-import

MODULES = 'ansible_collections.baremetal.lifecycle.plugins.modules'
# The collection's files that read the working directory or the environment as they are imported (where openstacksdk
# looks for clouds.yaml: the working directory first): each child imports them again, in its own.
READ_AT_IMPORT = ('ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.clouds_file',)


def import_modules():
    """Import what every module of the collection imports (never running main: each guards it with ``__name__``),
    then forget the modules themselves: a child runs its module's file afresh, as ``__main__``."""
    package = importlib.import_module(MODULES)
    for info in pkgutil.iter_modules(package.__path__):
        name = '%s.%s' % (MODULES, info.name)
        importlib.import_module(name)
        del sys.modules[name]
        delattr(package, info.name)


def run_in_child(request):
    """In the forked child: run the module as ``python -m`` would, then leave with its exit status."""
    status = 1
    try:
        random.seed()  # from os.urandom, as a new interpreter seeds it: children do not share the server's sequence
        os.chdir(request['cwd'])
        os.environ.clear()
        os.environ.update(request['env'])
        for fd, path, flags in ((0, os.devnull, os.O_RDONLY), (1, request['stdout'], os.O_WRONLY | os.O_CREAT),
                                (2, request['stderr'], os.O_WRONLY | os.O_CREAT)):
            target = os.open(path, flags, 0o600)
            os.dup2(target, fd)
            os.close(target)
        sys.stdin = open(0, encoding='utf-8', closefd=False)  # pylint: disable=consider-using-with
        for name in READ_AT_IMPORT:
            importlib.reload(sys.modules[name])
        sys.argv = [request['module'], request['args_file']]
        try:
            runpy.run_module('%s.%s' % (MODULES, request['module']), run_name='__main__', alter_sys=True)
            status = 0
        except SystemExit as leaving:
            code = leaving.code
            status = code if isinstance(code, int) else (0 if code is None else 1)
            if not isinstance(code, int) and code is not None:
                sys.stderr.write('%s\n' % code)
    except BaseException:  # pylint: disable=broad-except
        traceback.print_exc()
        status = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)  # pylint: disable=protected-access


def answer(stream, **fields):
    stream.write(json.dumps(fields) + '\n')
    stream.flush()


def serve(requests, answers):
    for line in requests:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            run_in_child(request)
        answer(answers, pid=pid)
        _pid, status = os.waitpid(pid, 0)
        answer(answers, rc=os.waitstatus_to_exitcode(status))


class ModuleServer:
    """The caller's side: ``run(module, args_file, cwd, env, timeout)`` -> (exit status, stdout, stderr), as
    ``subprocess.run([python, '-m', module, args_file], cwd=cwd, env=env, stdin=DEVNULL, capture_output=True)``
    would give them (subprocess.TimeoutExpired past the timeout, the child killed). ``stop()`` ends the server and
    waits for it."""

    def __init__(self, python, env):
        self.process = subprocess.Popen([python, os.path.abspath(__file__)], env=env, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE)
        self._pending = b''
        self.python = python
        self._lock = threading.Lock()  # one request at a time on the pipe

    def _answer(self, deadline):
        """The server's next answer (a dict), or None when the deadline passed first."""
        while b'\n' not in self._pending:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return None
            ready, _w, _x = select.select([self.process.stdout], [], [], left)
            if not ready:
                return None
            chunk = os.read(self.process.stdout.fileno(), 65536)
            if not chunk:
                raise RuntimeError('the module server (pid %d) ended: exit status %s'
                                   % (self.process.pid, self.process.wait()))
            self._pending += chunk
        line, self._pending = self._pending.split(b'\n', 1)
        return json.loads(line)

    def run(self, module, args_file, cwd, env, timeout):
        if not self._lock.acquire(blocking=False):
            # Another thread's run is under way: this one runs beside it, in a new interpreter, as before the server.
            process = subprocess.run([self.python, '-m', '%s.%s' % (MODULES, module), str(args_file)], cwd=str(cwd),
                                     env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                     timeout=timeout, check=False)
            return process.returncode, process.stdout, process.stderr
        try:
            return self._run(module, args_file, cwd, env, timeout)
        finally:
            self._lock.release()

    def _run(self, module, args_file, cwd, env, timeout):
        outputs = [os.path.join(str(cwd), '.module-%s.%s' % (os.getpid(), name)) for name in ('stdout', 'stderr')]
        request = dict(module=module, args_file=str(args_file), cwd=str(cwd), env=env, stdout=outputs[0],
                       stderr=outputs[1])
        self.process.stdin.write(json.dumps(request).encode('utf-8') + b'\n')
        self.process.stdin.flush()
        pid = self._answer(None)['pid']
        ended = self._answer(time.monotonic() + timeout)
        if ended is None:
            os.kill(pid, signal.SIGKILL)
            self._answer(None)
            raise subprocess.TimeoutExpired([module, str(args_file)], timeout)
        texts = []
        for path in outputs:
            with open(path, encoding='utf-8', errors='replace') as stream:
                texts.append(stream.read())
            os.remove(path)
        return ended['rc'], texts[0], texts[1]

    def stop(self):
        self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process.stdout.close()


if __name__ == '__main__':
    import_modules()
    serve(sys.stdin, sys.stdout)

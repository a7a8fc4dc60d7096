# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Write an htpasswd file with one bcrypt entry, the only digest Ironic's http_basic accepts.

Run by the role with Ironic's interpreter (bcrypt comes with Ironic): htpasswd.py PATH USERNAME, the password
on stdin. Prints "changed" after writing, "unchanged" when the file already lets that user in with that
password (a new salt would rewrite the file on every run).
"""

import os
import sys

import bcrypt


def main(path, username):
    password = sys.stdin.read().encode('utf-8')
    if ':' in username or not username or not password:
        sys.exit('the user name must be non-empty without ":", and the password non-empty')
    try:
        with open(path, 'rb') as stream:
            entries = [line.strip() for line in stream if line.strip()]
    except FileNotFoundError:
        entries = []
    prefix = username.encode('utf-8') + b':'
    if entries == [entry for entry in entries if entry.startswith(prefix)] and len(entries) == 1:
        if bcrypt.checkpw(password, entries[0][len(prefix):]):
            print('unchanged')
            return
    handle = os.open(path + '.tmp', os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(handle, 'wb') as stream:
        stream.write(prefix + bcrypt.hashpw(password, bcrypt.gensalt()) + b'\n')
    os.replace(path + '.tmp', path)
    print('changed')


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])

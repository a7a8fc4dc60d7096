# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Generate a private CA and a server certificate for a loopback Ironic, PEM files in one directory.

Run by the role with Ironic's interpreter (cryptography comes with Ironic): make_tls.py DIR HOST.
Writes ca.pem (what clients trust), server.pem and server.key (what Ironic serves), valid for HOST, 127.0.0.1,
::1 and localhost for ten years. Clients verify the certificate as they would a real one.
"""

import datetime
import ipaddress
import os
import sys

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


def _name(text):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, text)])


def _write(path, data, mode):
    handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(handle, 'wb') as stream:
        stream.write(data)


def main(directory, host):
    now = datetime.datetime.now(datetime.timezone.utc)
    start, end = now - datetime.timedelta(hours=1), now + datetime.timedelta(days=3650)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = _name('baremetal.lifecycle local Ironic CA')
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(start).not_valid_after(end)
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
          .sign(ca_key, hashes.SHA256()))
    names = {x509.DNSName('localhost'), x509.IPAddress(ipaddress.ip_address('127.0.0.1')),
             x509.IPAddress(ipaddress.ip_address('::1'))}
    try:
        names.add(x509.IPAddress(ipaddress.ip_address(host)))
    except ValueError:
        names.add(x509.DNSName(host))
    key = ec.generate_private_key(ec.SECP256R1())
    server = (x509.CertificateBuilder().subject_name(_name(host)).issuer_name(ca_name).public_key(key.public_key())
              .serial_number(x509.random_serial_number()).not_valid_before(start).not_valid_after(end)
              .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
              .add_extension(x509.KeyUsage(True, False, False, False, False, False, False, False, False), critical=True)
              .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
              .add_extension(x509.SubjectAlternativeName(sorted(names, key=str)), critical=False)
              .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
              .sign(ca_key, hashes.SHA256()))
    pem = serialization.Encoding.PEM
    _write(os.path.join(directory, 'server.key'), key.private_bytes(
        pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()), 0o600)
    _write(os.path.join(directory, 'server.pem'), server.public_bytes(pem), 0o644)
    _write(os.path.join(directory, 'ca.pem'), ca.public_bytes(pem), 0o644)


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])

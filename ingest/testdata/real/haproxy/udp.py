# Writes every syslog datagram received on 127.0.0.1:PORT to FILE, one per line.
import socket, sys
port, path = int(sys.argv[1]), sys.argv[2]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", port))
with open(path, "ab", buffering=0) as f:
    while True:
        d, _ = s.recvfrom(65535)
        f.write(d.rstrip(b"\n") + b"\n")

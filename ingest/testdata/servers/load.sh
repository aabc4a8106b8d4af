#!/usr/bin/env bash
# Bounded load against the three servers on loopback: 40 requests each,
# a fault window (requests 15-24 hit /fail: 503) and a few slow, missing,
# static and POST requests. Every request goes to the three servers in turn.
set -u
for i in $(seq 1 40); do
	path="/api/items/$i"
	if [ "$i" -ge 15 ] && [ "$i" -le 24 ]; then path="/fail/$i"; fi
	case $i in 5|30) path="/slow/$i";; 9) path="/missing";; 12) path="/static/a.txt";; 36) path="/api/items?q=a%20b&x=\"y\"";; esac
	method=GET; [ "$i" -eq 7 ] && method=POST
	for port in 18010 18020 18030; do
		curl -s -o /dev/null -X "$method" -A 'rewind-load/1.0 (curl; "quoted")' -e "http://ref.example/p?i=$i" "http://127.0.0.1:$port$path"
	done
	sleep 0.1
done

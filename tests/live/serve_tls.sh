# perf-sql serve --web.config.file (serve/web_config.h): Debian's Prometheus scrapes it over
# https with tls_config.ca_file and basic_auth and reads a known workload's exact count; a job
# with a wrong password is down with 401; plain HTTP to the TLS port gets no metrics;
# /debug/pprof/ answers only with the password (a profile over https, gzip'd); with
# client_auth_type RequireAndVerifyClientCert a scraper without a certificate is refused and
# one with a certificate of the CA is answered; a changed file is read again (a new password),
# once a profile being collected is answered.
# Certificates are made here with openssl; the bcrypt hashes with Python's crypt.
. "$(dirname "$0")/lib.sh"; need_root
. "$(dirname "$0")/serve_lib.inc"
command -v openssl >/dev/null || skip "openssl is not installed"
bcrypt() { python3 -W ignore -c 'import crypt, sys; print(crypt.crypt(sys.argv[1], crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1024)))' "$1"; }
bcrypt x >/dev/null 2>&1 || skip "this Python has no crypt module to make bcrypt hashes"
d=$SERVE_DIR
(
	cd "$d" || exit 1
	openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 2 -subj /CN=perf-sql-test-ca
	for n in server client; do
		openssl req -newkey rsa:2048 -nodes -keyout $n.key -out $n.csr -subj /CN=$n
	done
	printf 'subjectAltName=IP:127.0.0.1\n' > san
	openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt -days 2 -extfile san
	openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out client.crt -days 2
) > "$d/openssl.out" 2>&1 || fail "openssl: $(tail -3 "$d/openssl.out")"
printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\nbasic_auth_users:\n  prom: %s\n' \
	"$(bcrypt s3cret)" > "$d/web.yml"
# tls_start CONFIG ARGS...: serve over https; sets PORT once it listens
tls_start() {
	local cfg=$1
	shift
	"$PERF_SQL" serve --listen 127.0.0.1:0 --web.config.file "$cfg" "$@" 2>"$d/serve.err" & SERVE_PID=$!
	for _ in $(seq 300); do
		PORT=$(sed -n 's|^perf-sql: serving https://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$d/serve.err")
		[ -n "$PORT" ] && return 0
		kill -0 "$SERVE_PID" 2>/dev/null || break
		sleep 0.1
	done
	fail "perf-sql serve over https did not start: $(cat "$d/serve.err")"
}
get() { curl -s --max-time 10 --cacert "$d/ca.crt" "$@"; }
code() { get -o /dev/null -w '%{http_code}' "$@" "https://127.0.0.1:$PORT/metrics"; }
tls_start "$d/web.yml" -i 200 --name w "select count(*) as n from sys_enter_write where count = 3217"
"$WL/writes" 30 3217 > /dev/null || fail "writes"
eq "$(code)" 401 "no password: 401"
eq "$(code -u prom:nope)" 401 "a wrong password: 401"
for _ in $(seq 50); do
	get -u prom:s3cret "https://127.0.0.1:$PORT/metrics" | grep -q '^perf_sql_w_n_total 30$' && break
	sleep 0.1
done
get -u prom:s3cret "https://127.0.0.1:$PORT/metrics" | grep -q '^perf_sql_w_n_total 30$' ||
	fail "prom:s3cret over https: $(get -u prom:s3cret "https://127.0.0.1:$PORT/metrics" | head -3)"
echo "ok: https with the right password reads the 30 writes"
plain=$(curl -s --max-time 5 "http://127.0.0.1:$PORT/metrics")
[[ "$plain" == *perf_sql* ]] && fail "plain HTTP to the TLS port got metrics"
echo "ok: plain HTTP to the TLS port gets no metrics"
# /debug/pprof/ is behind the same TLS and password: 401 without it, a gzip'd profile with it
pp="https://127.0.0.1:$PORT/debug/pprof"
eq "$(get -o /dev/null -w '%{http_code}' "$pp/")" 401 "/debug/pprof/ without a password"
eq "$(get -o /dev/null -w '%{http_code}' "$pp/profile?seconds=1")" 401 "a profile without a password"
eq "$(get -o /dev/null -w '%{http_code}' -u prom:nope "$pp/profile?seconds=1")" 401 "a profile with a wrong one"
get -u prom:s3cret "$pp/" | grep -qx '/debug/pprof/profile' || fail "no listing: $(get -u prom:s3cret "$pp/")"
get -u prom:s3cret -o "$d/cpu.pb.gz" "$pp/profile?seconds=1" || fail "the profile over https"
gzip -t "$d/cpu.pb.gz" || fail "the profile over https is not gzip'd"
echo "ok: /debug/pprof/ and its profiles over https, only with the password"

# Debian's Prometheus, two jobs: the right password and a wrong one
command -v prometheus >/dev/null || skip "prometheus is not installed (make setup)"
PPORT=$(free_port)
cat > "$d/prometheus.yml" <<PROMEOF
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: good
    scheme: https
    tls_config: { ca_file: $d/ca.crt }
    basic_auth: { username: prom, password: s3cret }
    static_configs: [ { targets: ['127.0.0.1:$PORT'] } ]
  - job_name: badpw
    scheme: https
    tls_config: { ca_file: $d/ca.crt }
    basic_auth: { username: prom, password: wrong }
    static_configs: [ { targets: ['127.0.0.1:$PORT'] } ]
PROMEOF
prometheus --config.file="$d/prometheus.yml" --storage.tsdb.path="$d/data" \
	--web.listen-address="127.0.0.1:$PPORT" --log.level=warn 2>"$d/prometheus.err" & PROM_PID=$!
for _ in $(seq 300); do
	curl -sf "http://127.0.0.1:$PPORT/-/ready" >/dev/null 2>&1 && break
	sleep 0.1
done
prom_wait 'perf_sql_w_n_total{job="good"}' 30
prom_wait 'up{job="badpw"}' 0
err=$(curl -sf "http://127.0.0.1:$PPORT/api/v1/targets" | python3 -c '
import json, sys
for t in json.load(sys.stdin)["data"]["activeTargets"]:
    if t["labels"]["job"] == "badpw": print(t["lastError"])')
[[ "$err" == *401* ]] || fail "badpw's error: $err"
echo "ok: Prometheus reads 30 over https with basic_auth; the wrong password's target is down: $err"
kill -TERM "$PROM_PID"; wait "$PROM_PID" 2>/dev/null; PROM_PID=

# the file changed: a new password, read at a window's end; but not while a profile is being
# collected (its connection is the old server's): the old password holds until it is answered
get -u prom:s3cret -o "$d/held.pb.gz" -w '%{http_code}' \
	"https://127.0.0.1:$PORT/debug/pprof/profile?seconds=3" > "$d/held.code" & SERVE_KIDS=$!
sleep 0.5
printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\nbasic_auth_users:\n  prom: %s\n' \
	"$(bcrypt n3w)" > "$d/web.yml"
sleep 1 # five windows: the file is seen changed
eq "$(code -u prom:s3cret)" 200 "the old password while a profile is collected"
wait "$SERVE_KIDS"; SERVE_KIDS=
eq "$(cat "$d/held.code")" 200 "the profile collected across the file's change"
gzip -t "$d/held.pb.gz" || fail "the profile across the change is not gzip'd"
for _ in $(seq 100); do
	[ "$(code -u prom:n3w)" = 200 ] && break
	sleep 0.1
done
eq "$(code -u prom:n3w)" 200 "the new password, once the file is read again"
eq "$(code -u prom:s3cret)" 401 "the old one"
grep -q "serve: $d/web.yml read again" "$d/serve.err" || fail "no 'read again': $(cat "$d/serve.err")"
serve_stop

# client certificates: required, and verified against client_ca_file
printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n' > "$d/mtls.yml"
tls_start "$d/mtls.yml" -i 200 syscalls
out=$(get "https://127.0.0.1:$PORT/metrics"); rc=$?
[ $rc != 0 ] && [[ "$out" != *perf_sql* ]] || fail "no client certificate: rc $rc, $out"
for _ in $(seq 50); do
	get --cert "$d/client.crt" --key "$d/client.key" "https://127.0.0.1:$PORT/metrics" |
		grep -q '^perf_sql_windows_total' && break
	sleep 0.1
done
get --cert "$d/client.crt" --key "$d/client.key" "https://127.0.0.1:$PORT/metrics" |
	grep -q '^perf_sql_windows_total' || fail "with the client certificate: no metrics"
echo "ok: RequireAndVerifyClientCert: refused without a certificate (curl $rc), answered with one"
serve_stop

# a file that is not a configuration: one line naming the key, exit 2
printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  min_version: TLS15\n' > "$d/bad.yml"
err=$("$PERF_SQL" serve --web.config.file "$d/bad.yml" syscalls 2>&1); rc=$?
eq "$rc" 2 "a bad web config: exit status"
eq "$err" "perf-sql: $d/bad.yml: tls_server_config.min_version 'TLS15': expected TLS10, TLS11, TLS12 or TLS13" "a bad web config: the line"

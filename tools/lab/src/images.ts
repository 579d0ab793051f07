// What the lab's pods run in place of their images' programs: the lab has no container images, so
// an exec runs its command on the host in the pod's network namespace, and the few image programs
// a check needs (agnhost's `connect`, which `yardctl check installation` execs as antctl does) are
// small stand-ins with the same arguments, output and exit codes.

/** Whether `image` is agnhost (`registry.k8s.io/e2e-test-images/agnhost:2.x`, or just `agnhost`). */
export function isAgnhostImage(image: string): boolean {
  return /(^|\/)agnhost(:|@|$)/.test(image);
}

/**
 * The argv to run for `command` in a container of `image`: `/agnhost ...` of an agnhost image goes
 * to {@link AGNHOST_STANDIN} (`sh -c`, its `$0` being `agnhost`); anything else runs as given
 * (found on the host's PATH).
 */
export function imageCommand(image: string, command: readonly string[]): string[] {
  if (command[0] === '/agnhost' && isAgnhostImage(image)) return ['sh', '-c', AGNHOST_STANDIN, 'agnhost', ...command.slice(1)];
  return [...command];
}

/**
 * agnhost's `connect <host:port> [--timeout=<duration>] [--protocol=tcp]` (test/images/agnhost/connect):
 * exit 0 once a TCP connection opens; else exit 1 with `TIMEOUT`, `REFUSED`, `DNS: ...` or
 * `OTHER: ...` on stderr. The timeout defaults to 5s, as agnhost's, in whole seconds (`ms` rounded
 * up). Other subcommands exit 1 naming themselves. A shell script around OpenBSD `nc -z` (the lab's
 * probes' tool): a fork and exec cost milliseconds where a node process costs 0.2-1.5 s on a loaded
 * 2-core machine, and `yardctl check installation` makes a connection per check and target.
 */
export const AGNHOST_STANDIN = String.raw`[ "$1" = connect ] || { echo "the lab's agnhost stand-in serves only connect, not \"$1\"" >&2; exit 1; }
shift
t=5s; proto=tcp; target=
while [ $# -gt 0 ]; do
  case "$1" in
    --timeout=*) t=${"${"}1#*=} ;;
    --timeout) shift; t=$1 ;;
    --protocol=*) proto=${"${"}1#*=} ;;
    --protocol) shift; proto=$1 ;;
    *) target=$1 ;;
  esac
  shift
done
[ "$proto" = tcp ] || { echo "OTHER: --protocol: the lab's agnhost stand-in connects over tcp only, not \"$proto\"" >&2; exit 1; }
case "$t" in
  *ms) n=${"${"}t%ms}; case "$n" in ''|*[!0-9]*) s=x ;; *) s=$(( (n + 999) / 1000 )) ;; esac ;;
  *s) s=${"${"}t%s} ;;
  *m) n=${"${"}t%m}; case "$n" in ''|*[!0-9]*) s=x ;; *) s=$(( n * 60 )) ;; esac ;;
  *) s=x ;;
esac
case "$s" in ''|*[!0-9]*) echo "OTHER: --timeout: invalid duration \"$t\"" >&2; exit 1 ;; esac
[ "$s" -ge 1 ] || s=1
case "$target" in ?*:?*) ;; *) echo "OTHER: expected host:port, got \"$target\"" >&2; exit 1 ;; esac
host=${"${"}target%:*}; port=${"${"}target##*:}; host=${"${"}host#[}; host=${"${"}host%]}
out=$(nc -z -v -w "$s" "$host" "$port" 2>&1) && exit 0
case "$out" in
  *[Rr]efused*) echo REFUSED >&2 ;;
  *"timed out"*|*[Tt]imeout*|'') echo TIMEOUT >&2 ;;
  *"not known"*|*resolve*) echo "DNS: $out" >&2 ;;
  *) echo "OTHER: $out" >&2 ;;
esac
exit 1
`;

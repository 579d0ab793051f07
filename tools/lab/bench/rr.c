/*
 * Request/response load for the lab benchmark, in the manner of netperf's TCP_CRR and UDP_RR
 * (netperf is not in Debian main): compiled by bench/rr.ts with the system's cc, run inside pod
 * network namespaces.
 *
 *   rr server PORT WORKERS          TCP on PORT (WORKERS processes accepting: read 1 byte, write
 *                                   1 byte, close) and a UDP echo of 1 byte on PORT.
 *   rr tcp_crr IP PORT SECONDS P    P client processes, each: connect, write 1 byte, read 1 byte,
 *                                   close, again; prints the total transactions per second.
 *   rr udp_rr IP PORT SECONDS P     P client processes, each: send 1 byte, wait for the answer.
 *
 * Prints one line: `<transactions> <seconds> <errors>`. A transaction that fails (refused,
 * reset, 1 s without an answer) counts as an error, not a transaction.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void die(const char *what) {
  perror(what);
  exit(2);
}

static struct sockaddr_in addr_of(const char *ip, int port) {
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons((unsigned short)port);
  if (inet_pton(AF_INET, ip, &a.sin_addr) != 1) {
    fprintf(stderr, "rr: bad IPv4 address %s\n", ip);
    exit(2);
  }
  return a;
}

static void timeouts(int fd) {
  struct timeval tv = {1, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

static int serve(int port, int workers) {
  struct sockaddr_in a = addr_of("0.0.0.0", port);
  int one = 1;
  int l = socket(AF_INET, SOCK_STREAM, 0);
  if (l < 0) die("socket");
  setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(l, (struct sockaddr *)&a, sizeof a) < 0) die("bind tcp");
  if (listen(l, 1024) < 0) die("listen");
  int u = socket(AF_INET, SOCK_DGRAM, 0);
  if (u < 0) die("socket udp");
  if (bind(u, (struct sockaddr *)&a, sizeof a) < 0) die("bind udp");
  signal(SIGCHLD, SIG_IGN);
  /* The children end with the process the benchmark started (its handle is that process). */
  if (fork() == 0) {
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    char b[64];
    for (;;) {
      struct sockaddr_in from;
      socklen_t fl = sizeof from;
      ssize_t n = recvfrom(u, b, sizeof b, 0, (struct sockaddr *)&from, &fl);
      if (n > 0) sendto(u, b, (size_t)n, 0, (struct sockaddr *)&from, fl);
    }
  }
  int worker = 0;
  for (int w = 1; w < workers && !worker; w++)
    if (fork() == 0) {
      prctl(PR_SET_PDEATHSIG, SIGTERM);
      worker = 1;
    }
  if (!worker) {
    printf("ready\n");
    fflush(stdout);
  }
  for (;;) {
    int c = accept(l, NULL, NULL);
    if (c < 0) continue;
    timeouts(c);
    char b;
    if (read(c, &b, 1) == 1) (void)!write(c, &b, 1);
    close(c);
  }
  return 0;
}

/* One client process: transactions until `until`; counts into out[0] (done) and out[1] (errors). */
static void client(int tcp, struct sockaddr_in a, double until, long *out) {
  char b = 'x';
  int u = -1;
  if (!tcp) {
    u = socket(AF_INET, SOCK_DGRAM, 0);
    timeouts(u);
    if (connect(u, (struct sockaddr *)&a, sizeof a) < 0) die("connect udp");
  }
  while (now() < until) {
    int ok = 0;
    if (tcp) {
      int s = socket(AF_INET, SOCK_STREAM, 0);
      int one = 1;
      setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      timeouts(s);
      /* An RST on close, as netperf's CRR: no TIME_WAIT pile-up on the client's ports. */
      struct linger lg = {1, 0};
      setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
      if (connect(s, (struct sockaddr *)&a, sizeof a) == 0 && write(s, &b, 1) == 1 && read(s, &b, 1) == 1) ok = 1;
      close(s);
    } else {
      if (send(u, &b, 1, 0) == 1 && recv(u, &b, 1, 0) == 1) ok = 1;
    }
    if (ok) out[0]++;
    else out[1]++;
  }
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "server") == 0) return serve(atoi(argv[2]), atoi(argv[3]));
  if (argc != 6 || (strcmp(argv[1], "tcp_crr") != 0 && strcmp(argv[1], "udp_rr") != 0)) {
    fprintf(stderr, "usage: rr server PORT WORKERS | rr tcp_crr|udp_rr IP PORT SECONDS PARALLEL\n");
    return 2;
  }
  int tcp = strcmp(argv[1], "tcp_crr") == 0;
  struct sockaddr_in a = addr_of(argv[2], atoi(argv[3]));
  double secs = atof(argv[4]);
  int par = atoi(argv[5]);
  long *counts = mmap(NULL, sizeof(long) * 2 * (size_t)par, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (counts == MAP_FAILED) die("mmap");
  memset(counts, 0, sizeof(long) * 2 * (size_t)par);
  double t0 = now();
  for (int i = 0; i < par; i++)
    if (fork() == 0) {
      client(tcp, a, t0 + secs, counts + 2 * i);
      _exit(0);
    }
  while (wait(NULL) > 0) {
  }
  double took = now() - t0;
  long done = 0, errors = 0;
  for (int i = 0; i < par; i++) {
    done += counts[2 * i];
    errors += counts[2 * i + 1];
  }
  printf("%ld %.3f %ld\n", done, took, errors);
  return 0;
}

/*
 * switchyard-cni (native): the CNI plugin a container runtime execs once per pod operation, as a
 * small dependency-free program that starts in about a millisecond (a Node.js start alone costs
 * ~25 ms, twice a whole `bridge` ADD). It is a transport only: it sends the CNI environment and
 * stdin to the agent's CNI server (gRPC method Exec over HTTP/2 on the unix socket) and prints what
 * the server answers, exiting with the code it gives. The server runs the same code as the Node.js
 * plugin (src/cni/plugin/run.ts), so results and spec errors are the same byte for byte.
 *
 * Decided here: VERSION (printed from version.h, generated at build time from the Node.js plugin's
 * own answer), the socket (the configuration's `cniSocket`, else `ipam.cniSocket`, else
 * SWITCHYARD_CNI_SOCKET, else /var/run/antrea/cni.sock), and the error when the agent cannot be
 * reached or does not answer (CNI code 11, try again later, with the configuration's cniVersion).
 *
 * HTTP/2 as RFC 9113 and HPACK as RFC 7541 describe them, only what a unary call needs: the
 * request headers are sent as literals (no Huffman, no dynamic table), the response headers are
 * never decoded (the server sends a message exactly when the call succeeds), flow control is kept
 * for what is sent and what is received.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "version.h" /* VERSION_JSON, CURRENT_CNI_VERSION */

#define DEFAULT_SOCKET "/var/run/antrea/cni.sock"
#define EXEC_PATH "/switchyard.cni.v1.Cni/Exec"
#define TIMEOUT_MS 120000
#define CODE_TRY_AGAIN_LATER 11

/* ---- growable byte buffers ---- */

typedef struct {
  char *p;
  size_t n, cap;
} buf_t;

static void die_oom(void) {
  fputs("switchyard-cni: out of memory\n", stderr);
  exit(1);
}

static void buf_reserve(buf_t *b, size_t extra) {
  if (b->n + extra <= b->cap) return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->n + extra) cap *= 2;
  char *p = realloc(b->p, cap);
  if (!p) die_oom();
  b->p = p;
  b->cap = cap;
}

static void buf_add(buf_t *b, const void *data, size_t len) {
  buf_reserve(b, len);
  memcpy(b->p + b->n, data, len);
  b->n += len;
}

static void buf_byte(buf_t *b, unsigned char c) { buf_add(b, &c, 1); }
static void buf_str(buf_t *b, const char *s) { buf_add(b, s, strlen(s)); }

/* A JSON string literal of `s` (quotes, backslashes and control characters escaped). */
static void buf_json_string(buf_t *b, const char *s, size_t len) {
  static const char hex[] = "0123456789abcdef";
  buf_byte(b, '"');
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      buf_byte(b, '\\');
      buf_byte(b, c);
    } else if (c < 0x20) {
      char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
      buf_add(b, esc, 6);
    } else {
      buf_byte(b, c);
    }
  }
  buf_byte(b, '"');
}

/* ---- the few keys of the network configuration the plugin needs ---- */

typedef struct {
  const char *s;
  size_t n, i;
} json_t;

static void skip_ws(json_t *j) {
  while (j->i < j->n && (j->s[j->i] == ' ' || j->s[j->i] == '\t' || j->s[j->i] == '\n' || j->s[j->i] == '\r')) j->i++;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static void utf8(buf_t *out, unsigned cp) {
  if (cp < 0x80) buf_byte(out, (unsigned char)cp);
  else if (cp < 0x800) {
    buf_byte(out, (unsigned char)(0xc0 | (cp >> 6)));
    buf_byte(out, (unsigned char)(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    buf_byte(out, (unsigned char)(0xe0 | (cp >> 12)));
    buf_byte(out, (unsigned char)(0x80 | ((cp >> 6) & 0x3f)));
    buf_byte(out, (unsigned char)(0x80 | (cp & 0x3f)));
  } else {
    buf_byte(out, (unsigned char)(0xf0 | (cp >> 18)));
    buf_byte(out, (unsigned char)(0x80 | ((cp >> 12) & 0x3f)));
    buf_byte(out, (unsigned char)(0x80 | ((cp >> 6) & 0x3f)));
    buf_byte(out, (unsigned char)(0x80 | (cp & 0x3f)));
  }
}

static int read_hex4(json_t *j, unsigned *cp) {
  if (j->i + 4 > j->n) return -1;
  unsigned v = 0;
  for (int k = 0; k < 4; k++) {
    int h = hexval(j->s[j->i + k]);
    if (h < 0) return -1;
    v = v * 16 + (unsigned)h;
  }
  j->i += 4;
  *cp = v;
  return 0;
}

/* Parses a string at j->i (which is at its opening quote); its decoded value into `out` when given. */
static int parse_string(json_t *j, buf_t *out) {
  if (j->i >= j->n || j->s[j->i] != '"') return -1;
  j->i++;
  while (j->i < j->n) {
    unsigned char c = (unsigned char)j->s[j->i++];
    if (c == '"') {
      if (out) buf_byte(out, 0), out->n--; /* NUL-terminated, not counted */
      return 0;
    }
    if (c < 0x20) return -1;
    if (c != '\\') {
      if (out) buf_byte(out, c);
      continue;
    }
    if (j->i >= j->n) return -1;
    char e = j->s[j->i++];
    unsigned cp;
    switch (e) {
      case '"': case '\\': case '/': if (out) buf_byte(out, (unsigned char)e); break;
      case 'b': if (out) buf_byte(out, '\b'); break;
      case 'f': if (out) buf_byte(out, '\f'); break;
      case 'n': if (out) buf_byte(out, '\n'); break;
      case 'r': if (out) buf_byte(out, '\r'); break;
      case 't': if (out) buf_byte(out, '\t'); break;
      case 'u':
        if (read_hex4(j, &cp) < 0) return -1;
        if (cp >= 0xd800 && cp < 0xdc00 && j->i + 6 <= j->n && j->s[j->i] == '\\' && j->s[j->i + 1] == 'u') {
          unsigned lo;
          j->i += 2;
          if (read_hex4(j, &lo) < 0) return -1;
          if (lo >= 0xdc00 && lo < 0xe000) cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          else if (out) utf8(out, 0xfffd), cp = lo;
        }
        if (out) utf8(out, cp);
        break;
      default: return -1;
    }
  }
  return -1;
}

static int parse_value(json_t *j, int depth);

static int parse_literal(json_t *j, const char *word) {
  size_t len = strlen(word);
  if (j->i + len > j->n || memcmp(j->s + j->i, word, len) != 0) return -1;
  j->i += len;
  return 0;
}

static int parse_number(json_t *j) {
  size_t start = j->i;
  while (j->i < j->n && strchr("+-0123456789.eE", j->s[j->i])) j->i++;
  return j->i > start ? 0 : -1;
}

/* Which keys of an object are kept: the top level's cniVersion, cniSocket and ipam, and ipam's cniSocket. */
typedef struct {
  buf_t version, socket, ipam_socket;
  int has_version, has_socket, has_ipam_socket;
} conf_t;

static int parse_object(json_t *j, int depth, conf_t *keep, int in_ipam) {
  j->i++; /* '{' */
  skip_ws(j);
  if (j->i < j->n && j->s[j->i] == '}') return j->i++, 0;
  for (;;) {
    buf_t key = {0};
    skip_ws(j);
    if (parse_string(j, &key) < 0) return free(key.p), -1;
    skip_ws(j);
    if (j->i >= j->n || j->s[j->i] != ':') return free(key.p), -1;
    j->i++;
    skip_ws(j);
    int is_str = j->i < j->n && j->s[j->i] == '"';
    int rc;
    if (keep && depth == 1 && !in_ipam && is_str && strcmp(key.p, "cniVersion") == 0) {
      keep->version.n = 0;
      rc = parse_string(j, &keep->version), keep->has_version = 1;
    } else if (keep && depth == 1 && !in_ipam && is_str && strcmp(key.p, "cniSocket") == 0) {
      keep->socket.n = 0;
      rc = parse_string(j, &keep->socket), keep->has_socket = 1;
    } else if (keep && depth == 2 && in_ipam && is_str && strcmp(key.p, "cniSocket") == 0) {
      keep->ipam_socket.n = 0;
      rc = parse_string(j, &keep->ipam_socket), keep->has_ipam_socket = 1;
    } else if (keep && depth == 1 && j->i < j->n && j->s[j->i] == '{' && strcmp(key.p, "ipam") == 0) {
      rc = parse_object(j, depth + 1, keep, 1);
    } else {
      rc = parse_value(j, depth + 1);
    }
    free(key.p);
    if (rc < 0) return -1;
    skip_ws(j);
    if (j->i < j->n && j->s[j->i] == ',') {
      j->i++;
      continue;
    }
    if (j->i < j->n && j->s[j->i] == '}') return j->i++, 0;
    return -1;
  }
}

static int parse_value(json_t *j, int depth) {
  if (depth > 512) return -1;
  skip_ws(j);
  if (j->i >= j->n) return -1;
  switch (j->s[j->i]) {
    case '{': return parse_object(j, depth, NULL, 0);
    case '[':
      j->i++;
      skip_ws(j);
      if (j->i < j->n && j->s[j->i] == ']') return j->i++, 0;
      for (;;) {
        if (parse_value(j, depth + 1) < 0) return -1;
        skip_ws(j);
        if (j->i < j->n && j->s[j->i] == ',') { j->i++; continue; }
        if (j->i < j->n && j->s[j->i] == ']') return j->i++, 0;
        return -1;
      }
    case '"': return parse_string(j, NULL);
    case 't': return parse_literal(j, "true");
    case 'f': return parse_literal(j, "false");
    case 'n': return parse_literal(j, "null");
    default: return parse_number(j);
  }
}

/* Reads the kept keys of a configuration; 0 when it is a JSON object (its keys then valid), else -1. */
static int read_conf(const char *s, size_t n, conf_t *c) {
  json_t j = {s, n, 0};
  skip_ws(&j);
  if (j.i >= n || s[j.i] != '{') return -1;
  if (parse_object(&j, 1, c, 0) < 0) return -1;
  skip_ws(&j);
  return j.i == n ? 0 : -1;
}

/* ---- errors the plugin answers itself ---- */

static int fail(const char *version, const char *msg, const char *details) {
  buf_t out = {0};
  buf_str(&out, "{\"cniVersion\":");
  buf_json_string(&out, version, strlen(version));
  char code[32];
  snprintf(code, sizeof code, ",\"code\":%d,\"msg\":", CODE_TRY_AGAIN_LATER);
  buf_str(&out, code);
  buf_json_string(&out, msg, strlen(msg));
  if (details && *details) {
    buf_str(&out, ",\"details\":");
    buf_json_string(&out, details, strlen(details));
  }
  buf_str(&out, "}\n");
  fwrite(out.p, 1, out.n, stdout);
  free(out.p);
  return 1;
}

/* ---- HTTP/2 ---- */

enum { DATA = 0, HEADERS = 1, RST_STREAM = 3, SETTINGS = 4, PING = 6, GOAWAY = 7, WINDOW_UPDATE = 8, CONTINUATION = 9 };
enum { END_STREAM = 0x1, ACK = 0x1, END_HEADERS = 0x4, PADDED = 0x8, PRIORITY_FLAG = 0x20 };

static void frame(buf_t *b, uint32_t len, uint8_t type, uint8_t flags, uint32_t stream) {
  unsigned char h[9] = {(unsigned char)(len >> 16), (unsigned char)(len >> 8), (unsigned char)len, type, flags,
                        (unsigned char)(stream >> 24), (unsigned char)(stream >> 16), (unsigned char)(stream >> 8), (unsigned char)stream};
  buf_add(b, h, 9);
}

/* An HPACK integer with an n-bit prefix (RFC 7541 5.1), the prefix's other bits in `first`. */
static void hpack_int(buf_t *b, unsigned first, int nbits, size_t value) {
  size_t max = (1u << nbits) - 1;
  if (value < max) {
    buf_byte(b, (unsigned char)(first | value));
    return;
  }
  buf_byte(b, (unsigned char)(first | max));
  value -= max;
  while (value >= 128) {
    buf_byte(b, (unsigned char)(value % 128 + 128));
    value /= 128;
  }
  buf_byte(b, (unsigned char)value);
}

static void hpack_string(buf_t *b, const char *s) {
  hpack_int(b, 0, 7, strlen(s)); /* H = 0: no Huffman */
  buf_str(b, s);
}

/* A literal header field without indexing: the name by static table index, or a new name when 0. */
static void hpack_literal(buf_t *b, unsigned name_index, const char *name, const char *value) {
  hpack_int(b, 0, 4, name_index);
  if (name_index == 0) hpack_string(b, name);
  hpack_string(b, value);
}

typedef struct {
  int fd;
  long deadline_ms;
  buf_t in;       /* received, not yet consumed */
  long send_conn; /* flow-control windows for what is sent */
  long send_stream;
  long initial_window;
  size_t max_frame;
} conn_t;

static long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

static int send_all(conn_t *c, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(c->fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* Reads more bytes into c->in; -1 on error, end of stream or the deadline. */
static int recv_more(conn_t *c, const char **why) {
  long left = c->deadline_ms - now_ms();
  if (left <= 0) return *why = "timeout", -1;
  struct pollfd p = {c->fd, POLLIN, 0};
  int r = poll(&p, 1, (int)left);
  if (r == 0) return *why = "timeout", -1;
  if (r < 0) return *why = strerror(errno), (errno == EINTR ? 0 : -1);
  buf_reserve(&c->in, 16384);
  ssize_t n = read(c->fd, c->in.p + c->in.n, c->in.cap - c->in.n);
  if (n == 0) return *why = "the agent closed the connection", -1;
  if (n < 0) return *why = strerror(errno), (errno == EINTR ? 0 : -1);
  c->in.n += (size_t)n;
  return 0;
}

typedef struct {
  uint32_t len;
  uint8_t type, flags;
  uint32_t stream;
  const unsigned char *payload;
} h2frame_t;

/* The next whole frame (consumed with consume_frame), reading as needed. */
static int next_frame(conn_t *c, h2frame_t *f, const char **why) {
  for (;;) {
    if (c->in.n >= 9) {
      const unsigned char *h = (const unsigned char *)c->in.p;
      uint32_t len = ((uint32_t)h[0] << 16) | ((uint32_t)h[1] << 8) | h[2];
      if (c->in.n >= 9 + (size_t)len) {
        f->len = len;
        f->type = h[3];
        f->flags = h[4];
        f->stream = (((uint32_t)h[5] << 24) | ((uint32_t)h[6] << 16) | ((uint32_t)h[7] << 8) | h[8]) & 0x7fffffffu;
        f->payload = h + 9;
        return 0;
      }
    }
    if (recv_more(c, why) < 0) return -1;
  }
}

static void consume_frame(conn_t *c, const h2frame_t *f) {
  size_t used = 9 + (size_t)f->len;
  memmove(c->in.p, c->in.p + used, c->in.n - used);
  c->in.n -= used;
}

static uint32_t be32(const unsigned char *p) { return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3]; }

typedef struct {
  buf_t body; /* DATA of stream 1 */
  int ended, ending_headers;
  const char *error;
} response_t;

/* Handles one frame of the connection (settings, pings, windows) or of the call's stream. */
static int handle_frame(conn_t *c, const h2frame_t *f, response_t *r) {
  buf_t out = {0};
  int rc = 0;
  switch (f->type) {
    case SETTINGS:
      if (f->flags & ACK) break;
      for (uint32_t k = 0; k + 6 <= f->len; k += 6) {
        unsigned id = ((unsigned)f->payload[k] << 8) | f->payload[k + 1];
        uint32_t v = be32(f->payload + k + 2);
        if (id == 4) { c->send_stream += (long)v - c->initial_window; c->initial_window = (long)v; }
        if (id == 5) c->max_frame = v;
      }
      frame(&out, 0, SETTINGS, ACK, 0);
      break;
    case PING:
      if (f->flags & ACK) break;
      frame(&out, f->len, PING, ACK, 0);
      buf_add(&out, f->payload, f->len);
      break;
    case WINDOW_UPDATE:
      if (f->len >= 4) {
        long inc = (long)(be32(f->payload) & 0x7fffffffu);
        if (f->stream == 0) c->send_conn += inc;
        else if (f->stream == 1) c->send_stream += inc;
      }
      break;
    case GOAWAY:
      if (!r->ended) r->error = "the agent refused the call (GOAWAY)", rc = -1;
      break;
    case RST_STREAM:
      if (f->stream == 1) r->error = "the agent reset the call", rc = -1;
      break;
    case HEADERS:
    case CONTINUATION:
      if (f->stream != 1) break;
      if (f->type == HEADERS && (f->flags & END_STREAM)) r->ending_headers = 1;
      if ((f->flags & END_HEADERS) && r->ending_headers) r->ended = 1;
      break;
    case DATA: {
      if (f->stream != 1) break;
      uint32_t skip = 0, pad = 0;
      if (f->flags & PADDED) {
        if (f->len < 1) return r->error = "bad DATA frame", -1;
        skip = 1;
        pad = f->payload[0];
      }
      if (skip + pad > f->len) return r->error = "bad DATA frame", -1;
      buf_add(&r->body, f->payload + skip, f->len - skip - pad);
      if (f->flags & END_STREAM) r->ended = 1;
      if (f->len > 0 && !r->ended) { /* give the window back */
        unsigned char inc[4] = {(unsigned char)(f->len >> 24), (unsigned char)(f->len >> 16), (unsigned char)(f->len >> 8), (unsigned char)f->len};
        frame(&out, 4, WINDOW_UPDATE, 0, 0);
        buf_add(&out, inc, 4);
        frame(&out, 4, WINDOW_UPDATE, 0, 1);
        buf_add(&out, inc, 4);
      }
      break;
    }
    default:
      break;
  }
  if (out.n && send_all(c, out.p, out.n) < 0) r->error = strerror(errno), rc = -1;
  free(out.p);
  return rc;
}

/* Sends the request (headers, then the message in DATA frames as the windows allow). */
static int send_request(conn_t *c, const buf_t *msg, response_t *r, const char **why) {
  buf_t out = {0};
  static const char preface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
  buf_add(&out, preface, sizeof preface - 1);
  frame(&out, 0, SETTINGS, 0, 0);
  buf_t hb = {0};
  buf_byte(&hb, 0x83); /* :method POST */
  buf_byte(&hb, 0x86); /* :scheme http */
  hpack_literal(&hb, 4, NULL, EXEC_PATH);
  hpack_literal(&hb, 1, NULL, "localhost");
  hpack_literal(&hb, 31, NULL, "application/grpc");
  hpack_literal(&hb, 0, "te", "trailers");
  char timeout[24];
  snprintf(timeout, sizeof timeout, "%dm", TIMEOUT_MS);
  hpack_literal(&hb, 0, "grpc-timeout", timeout);
  frame(&out, (uint32_t)hb.n, HEADERS, END_HEADERS, 1);
  buf_add(&out, hb.p, hb.n);
  free(hb.p);
  int rc = send_all(c, out.p, out.n);
  free(out.p);
  if (rc < 0) return *why = strerror(errno), -1;
  size_t off = 0;
  do {
    size_t chunk = msg->n - off;
    if (chunk > c->max_frame) chunk = c->max_frame;
    while ((long)chunk > c->send_conn || (long)chunk > c->send_stream) {
      h2frame_t f;
      if (next_frame(c, &f, why) < 0) return -1;
      if (handle_frame(c, &f, r) < 0) return *why = r->error, -1;
      consume_frame(c, &f);
    }
    buf_t d = {0};
    frame(&d, (uint32_t)chunk, DATA, off + chunk == msg->n ? END_STREAM : 0, 1);
    buf_add(&d, msg->p + off, chunk);
    rc = send_all(c, d.p, d.n);
    free(d.p);
    if (rc < 0) return *why = strerror(errno), -1;
    c->send_conn -= (long)chunk;
    c->send_stream -= (long)chunk;
    off += chunk;
  } while (off < msg->n);
  return 0;
}

/* ---- the call ---- */

static const char *const ENV_KEYS[] = {"CNI_COMMAND", "CNI_CONTAINERID", "CNI_NETNS", "CNI_IFNAME", "CNI_ARGS", "CNI_PATH", "SWITCHYARD_CNI_SOCKET", NULL};

/* The Exec message: {"env":{...the CNI variables set...},"stdin":"..."} in a gRPC frame. */
static buf_t exec_message(const buf_t *in) {
  buf_t json = {0};
  buf_str(&json, "{\"env\":{");
  int first = 1;
  for (const char *const *k = ENV_KEYS; *k; k++) {
    const char *v = getenv(*k);
    if (!v) continue;
    if (!first) buf_byte(&json, ',');
    first = 0;
    buf_json_string(&json, *k, strlen(*k));
    buf_byte(&json, ':');
    buf_json_string(&json, v, strlen(v));
  }
  buf_str(&json, "},\"stdin\":");
  buf_json_string(&json, in->p ? in->p : "", in->n);
  buf_byte(&json, '}');
  buf_t msg = {0};
  unsigned char prefix[5] = {0, (unsigned char)(json.n >> 24), (unsigned char)(json.n >> 16), (unsigned char)(json.n >> 8), (unsigned char)json.n};
  buf_add(&msg, prefix, 5);
  buf_add(&msg, json.p, json.n);
  free(json.p);
  return msg;
}

static int read_all(int fd, buf_t *b) {
  for (;;) {
    buf_reserve(b, 65536);
    ssize_t n = read(fd, b->p + b->n, b->cap - b->n);
    if (n == 0) return 0;
    if (n < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    b->n += (size_t)n;
  }
}

int main(void) {
  const char *command = getenv("CNI_COMMAND");
  if (command && strcmp(command, "VERSION") == 0) {
    fputs(VERSION_JSON "\n", stdout);
    return 0;
  }
  buf_t in = {0};
  if (read_all(0, &in) < 0) in.n = 0; /* no stdin: an empty configuration, which the agent refuses */
  conf_t conf = {0};
  const char *version = CURRENT_CNI_VERSION;
  const char *socket_path = getenv("SWITCHYARD_CNI_SOCKET");
  if (!socket_path || !*socket_path) socket_path = DEFAULT_SOCKET;
  if (read_conf(in.p ? in.p : "", in.n, &conf) == 0) {
    if (conf.has_version) version = conf.version.p;
    if (conf.has_socket) socket_path = conf.socket.p;
    else if (conf.has_ipam_socket) socket_path = conf.ipam_socket.p;
  }

  char details[512];
  const char *why = NULL;
  conn_t c = {.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), .deadline_ms = now_ms() + TIMEOUT_MS, .send_conn = 65535, .send_stream = 65535, .initial_window = 65535, .max_frame = 16384};
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  if (strlen(socket_path) >= sizeof addr.sun_path) {
    snprintf(details, sizeof details, "cannot reach %s: socket path too long", socket_path);
    return fail(version, "switchyard agent unavailable", details);
  }
  strcpy(addr.sun_path, socket_path);
  if (c.fd < 0 || connect(c.fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
    snprintf(details, sizeof details, "cannot reach %s: %s", socket_path, strerror(errno));
    return fail(version, "switchyard agent unavailable", details);
  }
  buf_t msg = exec_message(&in);
  response_t r = {0};
  if (send_request(&c, &msg, &r, &why) == 0) {
    while (!r.ended) {
      h2frame_t f;
      if (next_frame(&c, &f, &why) < 0) break;
      if (handle_frame(&c, &f, &r) < 0) {
        why = r.error;
        break;
      }
      consume_frame(&c, &f);
    }
  }
  close(c.fd);
  /* A reply is one gRPC message: [0][length][exit code][what to print]. Anything else: no answer. */
  const unsigned char *b = (const unsigned char *)r.body.p;
  if (r.ended && r.body.n >= 6 && b[0] == 0 && be32(b + 1) == r.body.n - 5) {
    fwrite(b + 6, 1, r.body.n - 6, stdout);
    return b[5];
  }
  if (why && strcmp(why, "timeout") == 0) snprintf(details, sizeof details, "no answer from %s within %d ms", socket_path, TIMEOUT_MS);
  else snprintf(details, sizeof details, "call %s failed: %s", EXEC_PATH, why ? why : "no reply message (the agent may not serve Exec)");
  return fail(version, "switchyard agent unavailable", details);
}

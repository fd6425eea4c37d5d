/* The ledger file's line format (src/run/ledger.h): a line round-trips with
 * every escaped character and exact numbers; its chain is FNV-1a-64 of the
 * previous chain's hex digits, a tab and the line up to its last tab
 * (recomputed here with a separate FNV); a changed byte, a line moved to
 * another place in the chain, a missing field and a bad escape are refused;
 * and the zCDP conversion the totals use agrees with the Gaussian
 * accountant's own (k releases: ρ summed, then converted). */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "dpbo/accountant.h"
#include "run/ledger.h"

/* FNV-1a-64 (Fowler, Noll, Vo; offset basis 0xcbf29ce484222325, prime
 * 0x100000001b3), written out again rather than taken from ledger.c. */
static uint64_t reference_fnv(const char *s, size_t n) {
  uint64_t h = UINT64_C(14695981039346656037);
  for (size_t i = 0; i < n; i++)
    h = (h ^ (unsigned char)s[i]) * UINT64_C(1099511628211);
  return h;
}

static void fill(dpbo_ledger_event *e) {
  memset(e, 0, sizeof *e);
  e->seq = 1;
  strcpy(e->time, "2026-01-02T03:04:05Z");
  strcpy(e->kind, "charge");
  strcpy(e->key, "0123456789abcdef");
  strcpy(e->key_source, "rows of a\tb\\c\nd");
  strcpy(e->algorithm, "algorithm1");
  strcpy(e->mechanism, "exponential+laplace");
  strcpy(e->params, "split=0.5\r");
  e->epsilon = 0.1 + 0.2; /* not a short decimal: %.17g must round-trip it */
  e->delta = 1e-6;
  e->rho = NAN;
  e->k = 1;
  strcpy(e->runfile, "/tmp/x\\t.h5");
  strcpy(e->host, "node1");
}

int main(void) {
  dpbo_error err;
  dpbo_ledger_event a, b, back;
  char line1[16384], line2[16384];
  uint64_t c1 = 0, c2 = 0, chain;
  fill(&a);
  size_t n1 = dpbo__ledger_format(&a, 0, &c1, line1, sizeof line1);
  CHECK(n1 > 0 && line1[n1 - 1] == '\n' && strlen(line1) == n1);
  line1[n1 - 1] = '\0';
  printf("line 1: %s\n", line1);
  /* Exactly 15 raw tabs: every tab inside a field is escaped. */
  int tabs = 0;
  for (const char *p = line1; *p; p++)
    tabs += *p == '\t';
  CHECK_MSG(tabs == 15, "%d tabs", tabs);
  /* The chain, recomputed: "0000000000000000\t" + the line up to its last tab. */
  const char *last = strrchr(line1, '\t');
  char text[20000];
  snprintf(text, sizeof text, "%016" PRIx64 "\t%.*s", (uint64_t)0, (int)(last - line1), line1);
  uint64_t expect = reference_fnv(text, strlen(text));
  char hex[20];
  snprintf(hex, sizeof hex, "%016" PRIx64, expect);
  CHECK_MSG(strcmp(last + 1, hex) == 0 && c1 == expect, "chain %s, expected %s", last + 1, hex);

  chain = 0;
  dpbo_error_clear(&err);
  CHECK(dpbo__ledger_parse(line1, &chain, &back, &err) == DPBO_OK);
  CHECK(chain == c1);
  CHECK(strcmp(back.key_source, a.key_source) == 0 && strcmp(back.params, a.params) == 0);
  CHECK(strcmp(back.runfile, a.runfile) == 0 && strcmp(back.kind, "charge") == 0);
  CHECK(back.epsilon == a.epsilon && back.delta == a.delta && isnan(back.rho) && back.k == 1);

  /* Line 2 chains to line 1. */
  fill(&b);
  b.seq = 2;
  b.rho = 0.125;
  b.k = 30;
  size_t n2 = dpbo__ledger_format(&b, c1, &c2, line2, sizeof line2);
  CHECK(n2 > 0);
  line2[n2 - 1] = '\0';
  chain = c1;
  CHECK(dpbo__ledger_parse(line2, &chain, &back, &err) == DPBO_OK && back.rho == 0.125 &&
        back.k == 30 && chain == c2);
  /* Line 2 first (reordered): its chain does not match. */
  chain = 0;
  CHECK(dpbo__ledger_parse(line2, &chain, &back, &err) == DPBO_ERR_DATA);
  CHECK(strstr(err.message, "checksum does not match") != NULL);
  /* One byte of line 1 changed: refused. */
  char edited[16384];
  strcpy(edited, line1);
  char *eps = strstr(edited, "0.30000000000000004");
  CHECK(eps != NULL);
  if (eps) eps[2] = '1';
  chain = 0;
  CHECK(dpbo__ledger_parse(edited, &chain, &back, &err) == DPBO_ERR_DATA);
  /* A field missing, a bad escape: refused, whatever the chain. */
  chain = 0;
  CHECK(dpbo__ledger_parse("dpbo-ledger-1\t1\tx", &chain, &back, &err) == DPBO_ERR_DATA);
  CHECK(strstr(err.message, "fields") != NULL);
  strcpy(edited, line1);
  char *esc = strstr(edited, "\\t");
  if (esc) esc[1] = 'q';
  chain = 0;
  CHECK(dpbo__ledger_parse(edited, &chain, &back, &err) == DPBO_ERR_DATA);
  /* A line too long for its buffer is not written at all. */
  CHECK(dpbo__ledger_format(&a, 0, &c1, line1, 64) == 0);

  /* The zCDP total of k Gaussian releases is what the Gaussian accountant
   * states for them (its ε at δ is the conversion of kρ). */
  double rho = 0, eps_sum = 0, eps_acc = 0;
  CHECK(dpbo_accountant_gaussian_rho(30, 1.0, 20.0, &rho, &err) == DPBO_OK);
  CHECK(dpbo_accountant_zcdp_epsilon(rho, 1e-6, &eps_sum, &err) == DPBO_OK);
  CHECK(dpbo_accountant_gaussian_epsilon(30, 1.0, 20.0, 1e-6, &eps_acc, &err) == DPBO_OK);
  printf("rho %.6g: epsilon %.10g (conversion) vs %.10g (accountant)\n", rho, eps_sum, eps_acc);
  CHECK_CLOSE(eps_sum, eps_acc, 1e-9, 0.0);
  /* Bun and Steinke 2016, Proposition 1.3: ε <= ρ + 2 sqrt(ρ log(1/δ)). */
  CHECK(eps_sum <= rho + 2 * sqrt(rho * log(1e6)));
  CHECK(dpbo_accountant_zcdp_epsilon(-1.0, 1e-6, &eps_sum, &err) == DPBO_ERR_ARG);
  return dpbo_test_summary("test_ledger");
}

/* Run options carried by a scene (scene_options.h): checked when the scene is read, applied by
 * `signorini run` before it reads its options. */
#include "signorini/scene_options.h"
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "signorini/options.h"
#include "signorini/scene.h"

/* The numerical method's options: what a scene kind may choose for its runs. */
static int carried(const char *name) {
  static const char *exact[] = {"solver", "solver_max_it", "solver_tol", "dt", "theta"};
  static const char *prefixes[] = {"subadmm_", "pgs_", "canal_", "sap_", "nsn_", "contact_"};
  for (size_t k = 0; k < sizeof exact / sizeof exact[0]; ++k)
    if (!strcmp(name, exact[k])) return 1;
  for (size_t k = 0; k < sizeof prefixes / sizeof prefixes[0]; ++k)
    if (!strncmp(name, prefixes[k], strlen(prefixes[k]))) return 1;
  return 0;
}

/* "-" and a letter, then letters, digits and '_' (a negative number is a value). */
static int is_name(const char *word) {
  if (word[0] != '-' || !isalpha((unsigned char)word[1])) return 0;
  for (const char *c = word + 2; *c; ++c)
    if (!isalnum((unsigned char)*c) && *c != '_') return 0;
  return 1;
}

/* The next blank-separated word of *text into word (at most len - 1 characters); 0 at the end. */
static int next_word(const char **text, char *word, size_t len) {
  const char *s = *text;
  while (*s && isspace((unsigned char)*s)) ++s;
  size_t n = 0;
  while (s[n] && !isspace((unsigned char)s[n])) ++n;
  *text = s + n;
  if (!n) return 0;
  snprintf(word, len, "%.*s", (int)(n < len ? n : len - 1), s);
  return 1;
}

int sg_scene_options_valid(const char *text, char *why, size_t len) {
  if (strlen(text) >= SG_SCENE_OPTIONS_LEN) {
    snprintf(why, len, "longer than %d characters", SG_SCENE_OPTIONS_LEN - 1);
    return 0;
  }
  for (const char *c = text; *c; ++c)
    if (!isprint((unsigned char)*c) && !isspace((unsigned char)*c)) {
      snprintf(why, len, "holds a character that is not printable text");
      return 0;
    }
  char word[SG_SCENE_OPTIONS_LEN], seen[SG_SCENE_OPTIONS_LEN + 2] = " ", key[SG_SCENE_OPTIONS_LEN + 2];
  const char *s = text;
  int after_name = 0;
  while (next_word(&s, word, sizeof word)) {
    if (!is_name(word)) {
      if (!after_name) {
        snprintf(why, len, "'%s' is not an option name and follows no option", word);
        return 0;
      }
      after_name = 0;
      continue;
    }
    if (!carried(word + 1)) {
      snprintf(why, len, "%s is not an option a scene may carry (the solver's and the contact model's, -dt, -theta)", word);
      return 0;
    }
    snprintf(key, sizeof key, " %s ", word);
    if (strstr(seen, key)) {
      snprintf(why, len, "%s is given twice", word);
      return 0;
    }
    snprintf(seen + strlen(seen), sizeof seen - strlen(seen), "%s ", word);
    after_name = 1;
  }
  return 1;
}

sg_err sg_scene_options_apply(const char *text, char *taken, size_t len) {
  char why[256], name[SG_SCENE_OPTIONS_LEN], value[SG_SCENE_OPTIONS_LEN];
  if (!sg_scene_options_valid(text, why, sizeof why))
    return sg_error_set(SG_ERR_FORMAT, "the scene's run options %s", why);
  if (taken && len) taken[0] = 0;
  const char *s = text;
  int have = next_word(&s, name, sizeof name);
  while (have) {
    const int more = next_word(&s, value, sizeof value), valued = more && !is_name(value);
    int set = 0;
    SG_CHECK(sg_opt_set_default(name, valued ? value : NULL, &set));
    if (set && taken) {
      size_t used = strlen(taken);
      snprintf(taken + used, len - used, "%s%s%s%s", used ? " " : "", name, valued ? " " : "", valued ? value : "");
    }
    if (valued) have = next_word(&s, name, sizeof name);
    else if ((have = more)) memcpy(name, value, sizeof name); /* value was the next option's name */
  }
  return SG_OK;
}

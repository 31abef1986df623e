#!/usr/bin/env sh
# A hunspell dictionary that stems suffixes only: every word the source dictionary derives with a
# prefix rule becomes a root word of its own, and the prefix rules are dropped.
#
#   scripts/hunspell-roots.sh SOURCE.aff SOURCE.dic TARGET_DIR NAME   # writes TARGET_DIR/NAME.aff, NAME.dic
#
# Why: Elasticsearch's hunspell filter returns the shortest stem it can derive, prefixes included,
# so with Debian's en_US dictionary `decode` is stemmed to `code`, `remove` to `move`, `review` to
# `view`, `request` to `quest` and `uninstall` to `install`: a listing that decodes QR codes
# matches "qr code generator" on two words (docs/catalog-reads.md, "Ranking quality"). Here
# `decode/...` is written as its own entry, so `decoding` still stems to `decode` and nothing
# stems to a word of another meaning. A prefixed word keeps the suffix flags the source allows it
# (cross-product `Y`). Only prefix rules that add letters to any word (strip 0, condition `.`) are
# expanded, as in Debian's en_US; a word with another prefix rule keeps just its suffixes.
# POSIX sh and awk only: it runs in the Elasticsearch image build too (deploy/elasticsearch.Dockerfile).
set -eu
[ "$#" -eq 4 ] || { echo "usage: $0 SOURCE.aff SOURCE.dic TARGET_DIR NAME" >&2; exit 2; }
aff="$1" dic="$2" dir="$3" name="$4"
mkdir -p "$dir"
grep -v '^PFX' "$aff" > "$dir/$name.aff"
awk '
  FNR == NR {
    if ($1 == "PFX" && NF >= 5 && $3 == "0" && $5 == ".") prefix[$2] = $4
    else if ($1 == "PFX" && NF == 4) pfxflag[$2] = 1
    else if ($1 == "SFX" && NF == 4 && ($3 == "Y" || $3 == "N")) cross[$2] = ($3 == "Y")
    next
  }
  FNR == 1 { next }   # the source count line: the count is written again below
  NF == 0 { next }
  {
    split($1, part, "/"); word = part[1]; flags = part[2]
    suffixes = ""; crossing = ""; prefixes = ""
    for (i = 1; i <= length(flags); i++) {
      f = substr(flags, i, 1)
      if (f in pfxflag) { if (f in prefix) prefixes = prefixes f; continue }
      suffixes = suffixes f
      if (!(f in cross) || cross[f]) crossing = crossing f
    }
    out[++n] = word (suffixes == "" ? "" : "/" suffixes)
    for (i = 1; i <= length(prefixes); i++) out[++n] = prefix[substr(prefixes, i, 1)] word (crossing == "" ? "" : "/" crossing)
  }
  END { print n; for (i = 1; i <= n; i++) print out[i] }
' "$aff" "$dic" > "$dir/$name.dic"

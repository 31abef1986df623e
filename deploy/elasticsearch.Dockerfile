# Elasticsearch for the production shape (docker-compose.yml): the official image plus the hunspell
# dictionaries the listing index stems with (mappings/listings.json, filter "catalog_hunspell";
# Elasticsearch refuses to create the index without it): Debian's hunspell-en-us with every
# prefixed word made a root (scripts/hunspell-roots.sh), as en_US_roots, and as shipped, as en_US
# (for indexes made before). The same dictionaries scripts/services.sh places on a development node.
FROM debian:bookworm-slim AS dictionary
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends hunspell-en-us && rm -rf /var/lib/apt/lists/*
COPY scripts/hunspell-roots.sh /tmp/hunspell-roots.sh
RUN sh /tmp/hunspell-roots.sh /usr/share/hunspell/en_US.aff /usr/share/hunspell/en_US.dic /dictionaries/en_US_roots en_US_roots \
  && mkdir -p /dictionaries/en_US && cp /usr/share/hunspell/en_US.aff /usr/share/hunspell/en_US.dic /dictionaries/en_US/

FROM elasticsearch:8.19.7
COPY --from=dictionary --chown=elasticsearch:root /dictionaries/ /usr/share/elasticsearch/config/hunspell/

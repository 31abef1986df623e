# Elasticsearch for the production shape (docker-compose.yml): the official image plus the hunspell
# en_US dictionary the listing index stems with (mappings/listings.json, filter "catalog_hunspell";
# Elasticsearch refuses to create the index without it). Debian's hunspell-en-us, the same
# dictionary scripts/services.sh places on a development node.
FROM debian:bookworm-slim AS dictionary
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends hunspell-en-us && rm -rf /var/lib/apt/lists/*

FROM elasticsearch:8.19.7
COPY --from=dictionary --chown=elasticsearch:root /usr/share/hunspell/en_US.aff /usr/share/hunspell/en_US.dic /usr/share/elasticsearch/config/hunspell/en_US/

# Build: docker build -t tidings --build-arg VERSION=$(git describe --tags --always) --build-arg COMMIT=$(git rev-parse HEAD) .
# Run:   docker run -d -p 8080:8080 -v tidings-data:/data tidings
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG COMMIT=unknown
# SQLite is compiled in through cgo. The build context has no .git
# (.dockerignore), so the commit comes from the build argument, not from
# Go's VCS stamping.
RUN CGO_ENABLED=1 go build -trimpath \
      -ldflags "-s -w -X main.Version=${VERSION} -X main.Commit=${COMMIT}" \
      -o /out/tidings ./cmd/tidings

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --home /data --shell /usr/sbin/nologin tidings \
 && mkdir -p /data && chown tidings:tidings /data
COPY --from=build /out/tidings /usr/local/bin/tidings
USER tidings
WORKDIR /data
VOLUME /data
ENV TIDINGS_DB=/data/tidings.db \
    TIDINGS_ADDR=0.0.0.0:8080
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/tidings"]
CMD ["serve"]

# The mock and the conformance runner in one small image, built without a Rust toolchain on the
# host (docs/conformance.md, "Installing", has the commands):
#
#   docker build -t perplexity-computer-mock .
#   docker run --rm -p 8080:8080 perplexity-computer-mock
#   docker run --rm perplexity-computer-mock conformance --target "conformance reference-client"
#
# Stage `build` compiles both binaries from the locked dependencies on the Rust version the
# workspace declares (rust-version in Cargo.toml); stage `runtime` is Debian slim with only the
# two binaries and the shell the runner launches targets with, run as an unprivileged user.

ARG RUST_VERSION=1.88
ARG DEBIAN_RELEASE=bookworm

FROM rust:${RUST_VERSION}-slim-${DEBIAN_RELEASE} AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p mock-server -p conformance \
    && mkdir -p /out \
    && cp target/release/mock-server target/release/conformance /out/

FROM debian:${DEBIAN_RELEASE}-slim AS runtime
RUN useradd --system --uid 10001 --no-create-home --shell /usr/sbin/nologin mock
COPY --from=build /out/mock-server /out/conformance /usr/local/bin/
USER 10001
# The mock listens on every interface inside the container; the URLs it hands out (sign-in
# pages, downloads) name the address a client reaches it at: pass --public-url when that is not
# http://127.0.0.1:8080 (the published port on the host).
EXPOSE 8080
CMD ["mock-server", "--listen", "0.0.0.0:8080", "--public-url", "http://127.0.0.1:8080"]

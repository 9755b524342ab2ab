# Homebrew formula for sandbox-bash, built from source with cargo.
#
# packaging/build makes the source tarball and writes target/packages/sandbox-bash.rb: this
# file with url and sha256 naming that tarball (or, with SANDBOX_BASH_SOURCE_URL set, the
# address where it is published). Homebrew installs formulae from taps only, so:
#   brew tap-new --no-git local/sandbox-bash
#   cp target/packages/sandbox-bash.rb "$(brew --repository local/sandbox-bash)/Formula/"
#   brew install local/sandbox-bash/sandbox-bash
class SandboxBash < Formula
  desc "Drop-in bash that checks each program against a four-scope rwx mode"
  url "@SOURCE_URL@"
  sha256 "@SOURCE_SHA256@"
  license any_of: ["MIT", "Apache-2.0"]

  depends_on "rust" => :build

  def install
    system "cargo", "install", *std_cargo_args
    man1.install "man/sandbox-bash.1"
    doc.install "README.md", "CHANGELOG.md", "LICENSE-MIT", "LICENSE-APACHE"
    (doc/"examples").install "packaging/config.example.toml"
    # A link named bash, for clients that only start `bash`: put its directory first on PATH.
    # The real bash is found by device and inode, never through this link.
    (libexec/"bin").install_symlink bin/"sandbox-bash" => "bash"
  end

  def caveats
    <<~EOS
      For clients that only start `bash`, put this directory first on PATH:
        #{opt_libexec}/bin
      It holds a link named bash to sandbox-bash. The system's bash is not replaced.
    EOS
  end

  test do
    assert_match "sandbox-bash #{version}", shell_output("#{bin}/sandbox-bash --sandbox-version")
  end
end

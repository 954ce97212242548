#!/bin/sh
# The macOS disk image of dist/ctadesk.app (installer/ctadesk.spec, built on macOS): the app beside
# a link to /Applications, the layout users drag the app across.  Prints the image's path:
#
#     sh installer/macos_dmg.sh        -> dist/ctadesk-<version>-macos-<arm64|x86_64>.dmg
#
# With CODESIGN_IDENTITY set ("Developer ID Application: ..."), the app is signed with the hardened
# runtime first; with NOTARY_PROFILE set too (a `xcrun notarytool store-credentials` profile), the
# image is notarised and stapled.  Without them the app keeps PyInstaller's ad-hoc signature, which
# runs on the machine that built it; Gatekeeper refuses it elsewhere (installer/README.md).
set -eu
cd "$(dirname "$0")/.."
version=$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' ctadesk/__init__.py)
app=dist/ctadesk.app
if [ ! -d "$app" ]; then
    echo "$app is missing: build it first on macOS (pyinstaller --noconfirm --distpath dist --workpath build installer/ctadesk.spec)" >&2
    exit 1
fi
if [ -n "${CODESIGN_IDENTITY:-}" ]; then
    codesign --force --deep --options runtime --timestamp --sign "$CODESIGN_IDENTITY" "$app"
fi
staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
ditto "$app" "$staging/ctadesk.app"
ln -s /Applications "$staging/Applications"
image="dist/ctadesk-$version-macos-$(uname -m).dmg"
hdiutil create -volname "ctadesk $version" -srcfolder "$staging" -fs HFS+ -format UDZO -ov "$image" >/dev/null
if [ -n "${CODESIGN_IDENTITY:-}" ] && [ -n "${NOTARY_PROFILE:-}" ]; then
    xcrun notarytool submit "$image" --keychain-profile "$NOTARY_PROFILE" --wait
    xcrun stapler staple "$image"
fi
echo "$image"

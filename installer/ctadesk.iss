; Inno Setup 6 script: the Windows setup program for the folder installer\ctadesk.spec builds on
; Windows (dist\ctadesk: ctadesk.exe, the windowed app; ctadesk-cli.exe, the command line).
;
;     .venv\Scripts\pyinstaller --noconfirm --distpath dist --workpath build installer\ctadesk.spec
;     iscc /DAppVersion=0.1.0 installer\ctadesk.iss      -> dist\ctadesk-0.1.0-windows-setup.exe
;
; The version is ctadesk.__version__ (ctadesk\__init__.py), passed by the caller
; (.github\workflows\installers.yml).  The setup installs for the current user without
; administrator rights (an office PC's usual account) unless the user chooses all users; it adds a
; Start-menu entry, optionally a desktop icon and the .ctaproj file type, and an uninstaller.
; Silent install (used by the CI's smoke test):
;     ctadesk-0.1.0-windows-setup.exe /VERYSILENT /SUPPRESSMSGBOXES /CURRENTUSER /DIR=C:\ctadesk

#ifndef AppVersion
  #error Give the version: iscc /DAppVersion=<ctadesk.__version__> installer\ctadesk.iss
#endif
#define SourceDir "..\dist\ctadesk"

[Setup]
AppId={{04E9E3C5-DB7B-4519-BA24-569DEF14A88D}
AppName=ctadesk
AppVersion={#AppVersion}
AppVerName=ctadesk {#AppVersion}
AppComments=Protect published statistical tables by controlled tabular adjustment
DefaultDirName={autopf}\ctadesk
DefaultGroupName=ctadesk
DisableProgramGroupPage=yes
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputDir=..\dist
OutputBaseFilename=ctadesk-{#AppVersion}-windows-setup
SetupIconFile=..\resources\ctadesk.ico
UninstallDisplayIcon={app}\ctadesk.exe
UninstallDisplayName=ctadesk {#AppVersion}
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern
ChangesAssociations=yes

[Tasks]
Name: desktopicon; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked
Name: projects; Description: "Open ctadesk projects (.ctaproj) with ctadesk"; GroupDescription: "File types:"

[Files]
Source: "{#SourceDir}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[InstallDelete]
; a new version's folder replaces the old one's libraries, rather than adding to them
Type: filesandordirs; Name: "{app}\_internal"

[Icons]
Name: "{autoprograms}\ctadesk"; Filename: "{app}\ctadesk.exe"; Comment: "Statistical table protection"
Name: "{autodesktop}\ctadesk"; Filename: "{app}\ctadesk.exe"; Tasks: desktopicon

[Registry]
; HKA: HKEY_CURRENT_USER for a per-user install, HKEY_LOCAL_MACHINE for all users
Root: HKA; Subkey: "Software\Classes\.ctaproj\OpenWithProgids"; ValueType: string; ValueName: "ctadesk.project"; ValueData: ""; Flags: uninsdeletevalue; Tasks: projects
Root: HKA; Subkey: "Software\Classes\ctadesk.project"; ValueType: string; ValueName: ""; ValueData: "ctadesk project"; Flags: uninsdeletekey; Tasks: projects
Root: HKA; Subkey: "Software\Classes\ctadesk.project\DefaultIcon"; ValueType: string; ValueName: ""; ValueData: "{app}\ctadesk.exe,0"; Tasks: projects
Root: HKA; Subkey: "Software\Classes\ctadesk.project\shell\open\command"; ValueType: string; ValueName: ""; ValueData: """{app}\ctadesk.exe"" gui ""%1"""; Tasks: projects

[Run]
Filename: "{app}\ctadesk.exe"; Description: "{cm:LaunchProgram,ctadesk}"; Flags: nowait postinstall skipifsilent

-- colltune: MPI collective tuning for every job of the session (Lmod).
--
-- Loading this module preloads colltune's PMPI shim into MPI jobs:
-- LD_PRELOAD gets libcolltune.so under Open MPI, libcolltune-mpich.so under
-- MPICH, in front of whatever LD_PRELOAD already holds. It sets
-- COLLTUNE_SERVER, the address of the site's colltuned. Unloading takes both
-- away again (and nothing else).
--
-- Which MPI: COLLTUNE_MPI=openmpi|mpich if set; else the loaded MPI module
-- (Lmod's MPI family, then the loaded module names: openmpi*, open-mpi*,
-- ompi*, mpich*); else the MPI that mpirun (or mpiexec) on PATH belongs to.
-- Derivatives of MPICH (MVAPICH, Intel MPI) are not recognised: set
-- COLLTUNE_MPI=mpich for them, at your own risk (untested).
--
-- Installed by the Debian package as /usr/share/colltune/modules/colltune.lua
-- (module use /usr/share/colltune/modules), by scripts/install.sh as
-- PREFIX/share/colltune/modules/colltune.lua; docs/operators-guide.md.

-- Site settings. scripts/install.sh writes its prefix here.
local prefix = "/usr"
-- The daemon's address when /etc/colltune/server (first line that is not a
-- comment) does not give one: the socket of the packaged systemd service.
local server_default = "unix:/run/colltune/colltuned.sock"
local server_file = "/etc/colltune/server"

local shims = { openmpi = "libcolltune.so", mpich = "libcolltune-mpich.so" }

whatis("Name: colltune")
whatis("Description: MPI collective tuning (PMPI shim preloaded, COLLTUNE_SERVER)")
help([[
colltune: MPI collectives run with the fastest algorithm measured on this
cluster. Loading this module preloads the colltune shim for the loaded MPI
(LD_PRELOAD) and sets COLLTUNE_SERVER to the site's colltuned.

  COLLTUNE_MPI=openmpi|mpich   choose the shim instead of detecting the MPI
  COLLTUNE_DISABLE=1           run jobs without tuning (pure pass-through)
  COLLTUNE_VERBOSE=1           the shim says at MPI_Init what it uses

Open MPI's mpirun passes LD_PRELOAD and COLLTUNE_SERVER to other nodes only
when asked: mpirun -x LD_PRELOAD -x COLLTUNE_SERVER ... (srun passes them).
]])

-- The first line of a file that is neither blank nor a comment, or nil.
local function first_line(path)
  local f = io.open(path, "r")
  if f == nil then return nil end
  for line in f:lines() do
    local value = line:gsub("^%s+", ""):gsub("%s+$", "")
    if value ~= "" and value:sub(1, 1) ~= "#" then
      f:close()
      return value
    end
  end
  f:close()
  return nil
end

-- "openmpi" or "mpich" for a module name or a path, else nil.
local function family_of(name)
  local n = (name or ""):lower()
  if n:find("openmpi", 1, true) or n:find("open%-mpi") or n:find("^ompi") or
     n:find("/ompi") then
    return "openmpi"
  end
  if n:find("mpich", 1, true) then return "mpich" end
  return nil
end

local function shell_quote(s)
  return "'" .. s:gsub("'", "'\\''") .. "'"
end

-- The MPI of the launcher on PATH: its resolved path names it (Debian's
-- alternatives: mpirun -> mpirun.openmpi -> orterun), else its --version.
local function family_of_launcher()
  for _, launcher in ipairs({ "mpirun", "mpiexec" }) do
    local path = capture("command -v " .. launcher .. " 2>/dev/null"):gsub("%s+$", "")
    if path ~= "" then
      local resolved = capture("readlink -f " .. shell_quote(path) .. " 2>/dev/null"):gsub("%s+$", "")
      local family = family_of(resolved)
      if family == nil then
        local version = capture(shell_quote(path) .. " --version 2>&1 </dev/null | head -n 5")
        if version:find("Open MPI", 1, true) then
          family = "openmpi"
        elseif version:find("HYDRA", 1, true) or version:find("MPICH", 1, true) then
          family = "mpich"
        end
      end
      if family ~= nil then return family, launcher .. " is " .. resolved end
    end
  end
  return nil
end

-- The MPI jobs of this session will use, and how it was found.
local function detect_mpi()
  local explicit = os.getenv("COLLTUNE_MPI")
  if explicit ~= nil and explicit ~= "" then
    if shims[explicit] == nil then
      LmodError("colltune: COLLTUNE_MPI=" .. explicit .. " is neither openmpi nor mpich")
    end
    return explicit, "COLLTUNE_MPI"
  end
  local family = os.getenv("LMOD_FAMILY_MPI")
  if family_of(family) then return family_of(family), "module " .. family end
  for name in (os.getenv("LOADEDMODULES") or ""):gmatch("[^:]+") do
    if family_of(name) then return family_of(name), "module " .. name end
  end
  return family_of_launcher()
end

local server = first_line(server_file) or server_default
local libdir = prefix .. "/lib/colltune"
if not isFile(pathJoin(libdir, shims.openmpi)) then
  libdir = prefix .. "/lib"  -- scripts/install.sh's layout
end

if mode() == "unload" then
  -- Remove what the load added, whatever the environment says now.
  local shim = os.getenv("COLLTUNE_SHIM")
  if shim ~= nil and shim ~= "" then
    prepend_path("LD_PRELOAD", shim)
    setenv("COLLTUNE_SHIM", shim)
  end
else
  local mpi, how = detect_mpi()
  if mpi == nil then
    if mode() == "load" then
      LmodMessage("colltune: no MPI found (no MPI module loaded, no mpirun on PATH):"
                  .. " jobs run untuned; load your MPI first or set COLLTUNE_MPI")
    end
  else
    local shim = pathJoin(libdir, shims[mpi])
    if mode() == "load" and not isFile(shim) then
      LmodError("colltune: " .. shim .. " is missing (MPI " .. mpi .. ", from " .. how .. ")")
    end
    prepend_path("LD_PRELOAD", shim)
    setenv("COLLTUNE_SHIM", shim)
  end
end
setenv("COLLTUNE_SERVER", server)
if prefix ~= "/usr" then prepend_path("PATH", prefix .. "/bin") end

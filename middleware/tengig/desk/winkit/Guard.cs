using System;
using System.Collections.Generic;
using System.ComponentModel;
using System.Diagnostics;
using System.IO;
using System.Runtime.InteropServices;

namespace TengigKit
{
    // Every tool the kit starts goes into a Windows job object that kills them when the kit's process ends,
    // however it ends; a close of the console window also removes the work files and drops the share
    // connection the kit made. Where not Windows there is no job object: the kit's own finally stops its
    // tools and removes its folders (End).
    public static class Guard
    {
        [StructLayout(LayoutKind.Sequential)]
        private struct BasicLimits
        {
            public long PerProcessUserTimeLimit;
            public long PerJobUserTimeLimit;
            public uint LimitFlags;
            public UIntPtr MinimumWorkingSetSize;
            public UIntPtr MaximumWorkingSetSize;
            public uint ActiveProcessLimit;
            public UIntPtr Affinity;
            public uint PriorityClass;
            public uint SchedulingClass;
        }

        [StructLayout(LayoutKind.Sequential)]
        private struct IoCounters
        {
            public ulong ReadOperationCount;
            public ulong WriteOperationCount;
            public ulong OtherOperationCount;
            public ulong ReadTransferCount;
            public ulong WriteTransferCount;
            public ulong OtherTransferCount;
        }

        [StructLayout(LayoutKind.Sequential)]
        private struct ExtendedLimits
        {
            public BasicLimits Basic;
            public IoCounters Io;
            public UIntPtr ProcessMemoryLimit;
            public UIntPtr JobMemoryLimit;
            public UIntPtr PeakProcessMemoryUsed;
            public UIntPtr PeakJobMemoryUsed;
        }

        private delegate bool ControlHandler(uint controlType);

        [DllImport("kernel32.dll", SetLastError = true, CharSet = CharSet.Unicode)]
        private static extern IntPtr CreateJobObject(IntPtr attributes, string name);

        [DllImport("kernel32.dll", SetLastError = true)]
        private static extern bool SetInformationJobObject(IntPtr job, int infoClass, ref ExtendedLimits info,
            uint length);

        [DllImport("kernel32.dll", SetLastError = true)]
        private static extern bool AssignProcessToJobObject(IntPtr job, IntPtr process);

        [DllImport("kernel32.dll", SetLastError = true)]
        private static extern bool TerminateJobObject(IntPtr job, uint exitCode);

        [DllImport("kernel32.dll", SetLastError = true)]
        private static extern bool SetConsoleCtrlHandler(ControlHandler handler, bool add);

        private const int ExtendedLimitInformation = 9;
        private const uint KillOnJobClose = 0x2000;
        private static IntPtr job = IntPtr.Zero;
        private static ControlHandler handler;
        private static readonly List<Process> tools = new List<Process>();
        private static readonly List<string> workDirs = new List<string>();
        private static readonly object ending = new object();
        public static string Connected = "";

        // staging: the kit's work folder. jobObject: a Windows job object and the console's close handler
        // (Windows only).
        public static void Begin(string staging, bool jobObject)
        {
            if (string.IsNullOrEmpty(staging))
            {
                throw new ArgumentException("the kit's work folder is not set (-WorkDir)");
            }
            AddWorkDir(staging);
            if (!jobObject || job != IntPtr.Zero)
            {
                return;
            }
            job = CreateJobObject(IntPtr.Zero, null);
            if (job == IntPtr.Zero)
            {
                throw new Win32Exception();
            }
            ExtendedLimits limits = new ExtendedLimits();
            limits.Basic.LimitFlags = KillOnJobClose;
            if (!SetInformationJobObject(job, ExtendedLimitInformation, ref limits,
                (uint)Marshal.SizeOf(typeof(ExtendedLimits))))
            {
                throw new Win32Exception();
            }
            handler = OnControl;
            SetConsoleCtrlHandler(handler, true);
        }

        // A folder of the kit's own, removed with everything in it when the kit ends.
        public static void AddWorkDir(string folder)
        {
            lock (ending)
            {
                workDirs.Add(folder);
            }
        }

        // The tool dies with the kit; False where there is no job or Windows refuses (an outer job without
        // nesting): the kit's own finally then stops it.
        public static bool Adopt(Process process)
        {
            lock (ending)
            {
                tools.Add(process);
            }
            return job != IntPtr.Zero && AssignProcessToJobObject(job, process.Handle);
        }

        // Every tool stopped, the work files removed, the share connection the kit made dropped.
        public static void End()
        {
            lock (ending)
            {
                if (job != IntPtr.Zero)
                {
                    TerminateJobObject(job, 1);
                }
                foreach (Process tool in tools)
                {
                    try
                    {
                        if (!tool.HasExited)
                        {
                            tool.Kill();
                        }
                        tool.WaitForExit(5000);
                    }
                    catch (InvalidOperationException)
                    {
                    }
                    catch (Win32Exception)
                    {
                    }
                }
                tools.Clear();
                foreach (string folder in workDirs)
                {
                    try
                    {
                        if (Directory.Exists(folder))
                        {
                            Directory.Delete(folder, true);
                        }
                    }
                    catch (IOException)
                    {
                    }
                    catch (UnauthorizedAccessException)
                    {
                    }
                }
                workDirs.Clear();
                if (Connected.Length > 0)
                {
                    Share.Disconnect(Connected);
                    Connected = "";
                }
            }
        }

        // 2: the console window closes; 5: log off; 6: shut down. Ctrl-C (0) and Ctrl-Break (1) are
        // PowerShell's: it stops the script, whose finally block calls End.
        private static bool OnControl(uint controlType)
        {
            if (controlType >= 2)
            {
                End();
            }
            return false;
        }
    }
}

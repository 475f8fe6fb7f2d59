using System;

namespace TengigKit
{
    // Where the kit runs: Windows (kernel32, job objects, the console's close) or not (the lab's Linux, where
    // the same C# uses .NET's plain file I/O and no job object).
    public static class Platform
    {
        public static bool Windows
        {
            get { return Environment.OSVersion.Platform == PlatformID.Win32NT; }
        }
    }
}

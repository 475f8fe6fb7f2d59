using System;
using System.Runtime.InteropServices;

namespace TengigKit
{
    // -Credential's connection to the share (what `net use` does): Windows only (mpr.dll).
    public static class Share
    {
        [StructLayout(LayoutKind.Sequential, CharSet = CharSet.Unicode)]
        private class NetResource
        {
            public int Scope;
            public int Type;
            public int DisplayType;
            public int Usage;
            public string LocalName;
            public string RemoteName;
            public string Comment;
            public string Provider;
        }

        [DllImport("mpr.dll", CharSet = CharSet.Unicode)]
        private static extern int WNetAddConnection2(NetResource resource, string password, string user, int flags);

        [DllImport("mpr.dll", CharSet = CharSet.Unicode)]
        private static extern int WNetCancelConnection2(string name, int flags, bool force);

        // 0, or the Windows error code (1326: wrong user or password; 1219: already connected to that
        // server as someone else).
        public static int Connect(string unc, string user, string password)
        {
            NetResource resource = new NetResource();
            resource.Type = 1;
            resource.RemoteName = unc;
            return WNetAddConnection2(resource, password, user, 0);
        }

        public static void Disconnect(string unc)
        {
            WNetCancelConnection2(unc, 0, true);
        }
    }
}
